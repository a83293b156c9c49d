"""What `doctor scan` and `doctor collect` share: probe selection options, gathering with a progress display."""
from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from typing import Callable, Iterator

from doctor.probing.live import LiveResult


def add_probe_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", metavar="PROBE,...", default="", help="run only these probes (names: doctor scan --list)")
    parser.add_argument("--skip", metavar="PROBE,...", default="", help="do not run these probes")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="cap every probe's timeout (default: per probe)")
    parser.add_argument("--peer", action="append", default=[], metavar="HOST:PORT",
                        help="also check TCP reachability of this endpoint (repeatable; MASTER_ADDR:MASTER_PORT always)")
    parser.add_argument("--list", action="store_true", help="list the probes and exit")


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def gather(args: argparse.Namespace) -> list[LiveResult]:
    """Run the selected probes in parallel; a progress display on stderr when it is a terminal."""
    from doctor.errors import UsageError
    from doctor.probing.node import run_all, select
    from probes import LIVE_PROBES
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    probes = select(LIVE_PROBES, _names(args.only), _names(args.skip), args.peer)
    with progress(len(probes)) as done:
        return run_all(probes, args.timeout, done)


def list_probes() -> int:
    from probes import LIVE_PROBES
    for p in LIVE_PROBES:
        print(f"{p.name:18} {p.timeout_s:>4g}s  {p.label}")
    return 0


@contextmanager
def progress(total: int) -> Iterator[Callable[[LiveResult], None]]:
    if not sys.stderr.isatty():
        yield lambda result: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    columns = (SpinnerColumn(), TextColumn("probing this node"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}", style="grey50"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("probes", total=total, last="")

        def done(result: LiveResult) -> None:
            bar.update(task, advance=1, last=f"{result.probe.name}: {result.status}")
        yield done
