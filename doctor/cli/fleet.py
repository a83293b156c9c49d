"""`doctor fleet ingest|report|tui`: many jobs' uploads into one store; the nodes that keep failing; what to do."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

from doctor.cli.exit_codes import ExitCode
from doctor.errors import InputError, UsageError

_SINCE = re.compile(r"^(\d+)([smhdw])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="fleet_command", metavar="ACTION", required=True)
    ingest = sub.add_parser("ingest", help="analyse job uploads and store them (idempotent, resumable)")
    ingest.add_argument("paths", nargs="+", metavar="PATH",
                        help="one job's upload each: folder, .tar.gz/.zip, `doctor collect` output; @FILE lists them")
    ingest.add_argument("--workers", type=int, default=0, help="local processes (default: one per CPU)")
    ingest.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                        help="run the analysis as Ray tasks: a local instance, or the cluster at ADDRESS")
    report = sub.add_parser("report", help="causes over time, suspect nodes, a decision per job")
    report.add_argument("--since", metavar="AGE", help="only jobs of the last AGE, e.g. 7d, 12h, 2w")
    report.add_argument("--alpha", type=float, default=0.05, help="family-wise error of the node test (0.05)")
    shape = report.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="doctor.fleet/1 JSON on stdout")
    shape.add_argument("--prometheus", action="store_true", help="text exposition format on stdout")
    shape.add_argument("--slurm-exclude", action="store_true", help="the suspect nodes as a Slurm hostlist")
    tui = sub.add_parser("tui", help="the fleet screen: nodes x causes, a node's jobs, a job's report")
    for each in (ingest, report, tui):
        each.add_argument("--db", metavar="PATH", help="the fleet database (default: $XDG_DATA_HOME/doctor/fleet.db)")


def run(args: argparse.Namespace) -> int:
    from doctor.fleet.store import FleetStore, default_path
    path = args.db or default_path()
    if args.fleet_command == "tui":
        from doctor.cli.tui import run_fleet
        return run_fleet(str(path))
    if args.fleet_command == "report" and not os.path.exists(path):
        raise InputError(f"{path}: no fleet database here (create one with `doctor fleet ingest --db {path} PATH...`)")
    with FleetStore(path) as store:
        return _ingest(args, store) if args.fleet_command == "ingest" else _report(args, store)


def _ingest(args: argparse.Namespace, store) -> int:  # type: ignore[no-untyped-def]
    from doctor.fleet.ingest import expand_paths, ingest
    try:
        paths = expand_paths(args.paths)
    except OSError as err:
        raise InputError(f"cannot read the list of uploads: {err}") from err

    def skipped(path: str, reason: str) -> None:
        print(f"doctor: skipped {_printable(path)}: {reason}", file=sys.stderr)

    summary = ingest(paths, store, args.workers, args.ray or None, args.ray is not None, skipped)
    print(f"doctor: {summary.added} added, {summary.known} already stored, {len(summary.failed)} skipped "
          f"({store.count()} jobs in {store.path})", file=sys.stderr)
    return ExitCode.USAGE if summary.failed else ExitCode.OK


def _report(args: argparse.Namespace, store) -> int:  # type: ignore[no-untyped-def]
    from doctor.fleet.report import build, prometheus, slurm_exclude
    report = build(store.jobs(_since(args.since)), args.alpha)
    if args.json:
        sys.stdout.write(json.dumps(report.to_json(), separators=(",", ":")) + "\n")   # C encoder: no indent
    elif args.prometheus:
        sys.stdout.write(prometheus(report))
    elif args.slurm_exclude:
        print(slurm_exclude(report))
    else:
        from rich.console import Console

        from doctor.fleet.text import render
        Console(highlight=False).print(render(report))
    return ExitCode.FINDINGS if report.suspects else ExitCode.OK


def _since(text: str | None) -> float | None:
    if text is None:
        return None
    match = _SINCE.match(text.strip())
    if not match:
        raise UsageError(f"--since {text!r}: give an age like 7d, 12h, 30m or 2w")
    return time.time() - int(match[1]) * _UNIT[match[2]]


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)
