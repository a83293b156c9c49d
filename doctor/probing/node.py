"""Gather this node: run the live probes that were asked for, all at once, each under its own timeout.

Threads only wait on child processes (every probe is a subprocess, Python readers included), so a
handful of threads is enough and nothing here can hang past the largest probe timeout plus the kill grace.
"""
from __future__ import annotations

import socket
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import replace
from typing import Callable

from doctor.errors import UsageError
from doctor.probing.contract import Failed
from doctor.probing.live import LiveProbe, LiveResult, kill_running, run_probe

WORKERS = 8


def node_name() -> str:
    return socket.gethostname() or "node"


def select(probes: tuple[LiveProbe, ...], only: list[str], skip: list[str], peers: list[str]) -> list[LiveProbe]:
    """The probes to run, by name; peers (HOST:PORT) are handed to the reachability reader."""
    names = {p.name for p in probes}
    unknown = sorted(set(only + skip) - names)
    if unknown:
        raise UsageError(f"unknown probe(s): {', '.join(unknown)} (known: {', '.join(sorted(names))})")
    for peer in peers:
        host, _, port = peer.rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--peer {peer!r}: expected HOST:PORT")
    chosen = [p for p in probes if (not only or p.name in only) and p.name not in skip]
    return [replace(p, argv=p.argv + tuple(peers)) if p.name == "reachability" else p for p in chosen]


def run_all(probes: list[LiveProbe], timeout_cap: float | None = None,
            on_done: Callable[[LiveResult], None] | None = None) -> list[LiveResult]:
    """Every probe's result, in the order given."""
    if not probes:
        return []
    results: dict[str, LiveResult] = {}
    try:
        with ThreadPoolExecutor(max_workers=min(WORKERS, len(probes)), thread_name_prefix="probe") as pool:
            futures = [pool.submit(run_probe, p, timeout_cap) for p in probes]
            by_future = dict(zip(futures, probes))
            for future in as_completed(futures):
                result = _result(future, by_future[future])
                results[result.probe.name] = result
                if on_done:
                    on_done(result)
    except KeyboardInterrupt:
        kill_running()
        raise
    return [results[p.name] for p in probes]


def _result(future: Future[LiveResult], probe: LiveProbe) -> LiveResult:
    """The probe's result; a bug in one probe's handling becomes that probe's failure, not the scan's."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001 - one probe must not sink the others
        return LiveResult(probe, probe.argv, Failed(f"internal error: {exc.__class__.__name__}: {exc}"))


def gather_facts(timeout_s: float | None = None):  # type: ignore[no-untyped-def]
    """Run every live probe that applies here and read their outputs through the offline parsers.

    The same path as `doctor scan` (outputs written as a bundle, then parsed), so `doctor cluster`, the
    TUI's live mode and `doctor scan` see identical facts. Returns doctor.probing.offline.Gathered.
    """
    import tempfile
    from pathlib import Path

    from doctor.probing.bundle import write_dir
    from doctor.probing.offline import gather_files
    from probes import DOCUMENT_PROBES, LINE_PROBES, LIVE_PROBES, STREAM_PROBES
    from probes.environment import redact_text
    results = run_all(select(LIVE_PROBES, [], [], []), timeout_s)
    with tempfile.TemporaryDirectory(prefix="doctor-live-") as tmp:
        write_dir(results, Path(tmp), node_name(), live=True, redact=redact_text)
        return gather_files([tmp], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES)
