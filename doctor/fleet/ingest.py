"""Ingest many uploads: the per-job analysis on a local process pool (default) or as Ray tasks; the driver alone
writes each result to the store, one transaction per job, so a killed ingest resumes where it stopped.

Uploads already stored are recognised by their content key in the worker, before any analysis.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from doctor.errors import UsageError
from doctor.fleet.analyse import analyse_job
from doctor.fleet.store import FleetStore

BATCH = 16                 # uploads per task: a task's overhead is paid once per batch


@dataclass
class IngestSummary:
    added: int = 0
    known: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)   # (path, one-line reason)


def analyse_batch(paths: list[str], known: frozenset[str]) -> list[dict[str, Any]]:
    return [analyse_job(path, known) for path in paths]


def ingest(paths: list[str], store: FleetStore, workers: int = 0, ray_address: str | None = None,
           use_ray: bool = False, report: Callable[[str, str], None] | None = None) -> IngestSummary:
    """report(path, reason) is called once per upload that could not be ingested."""
    known = frozenset(store.keys())
    batches = [paths[i:i + BATCH] for i in range(0, len(paths), BATCH)]
    if use_ray:
        results = _on_ray(batches, known, ray_address)
    elif _workers(workers) <= 1 or len(batches) <= 1:
        results = (r for batch in batches for r in analyse_batch(batch, known))
    else:
        results = _on_pool(batches, known, _workers(workers))
    summary = IngestSummary()
    with _progress(len(paths)) as advance:
        for result in results:
            _record(result, store, summary, report)
            advance()
    return summary


def _record(result: dict[str, Any], store: FleetStore, summary: IngestSummary,
            report: Callable[[str, str], None] | None) -> None:
    if not result["ok"]:
        summary.failed.append((result["path"], result["error"]))
        if report:
            report(result["path"], result["error"])
    elif "known" in result or not store.add(result["job"]):
        summary.known += 1
    else:
        summary.added += 1


def _workers(asked: int) -> int:
    return asked if asked > 0 else max(1, len(os.sched_getaffinity(0)))


def _on_pool(batches: list[list[str]], known: frozenset[str], workers: int) -> Iterator[dict[str, Any]]:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(analyse_batch, batch, known) for batch in batches]
        for future in as_completed(futures):
            yield from future.result()


def _on_ray(batches: list[list[str]], known: frozenset[str], address: str | None) -> Iterator[dict[str, Any]]:
    with ray_session(address) as ray:
        task = ray.remote(analyse_batch)
        known_ref = ray.put(known)
        pending = [task.remote(batch, known_ref) for batch in batches]
        while pending:          # a timeout, so Ctrl-C reaches Python between waits and Ray is shut down
            done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            for ref in done:
                yield from ray.get(ref)


@contextmanager
def ray_session(address: str | None = None) -> Iterator[Any]:
    """Ray, connected: to the one already initialised in this process, else one started (and ended) here."""
    try:
        import ray
    except ImportError as err:
        raise UsageError("--ray needs Ray: pip install 'doctor[ray]'") from err
    started_here = not ray.is_initialized()
    if started_here:
        _ray_init(ray, address)
    try:
        yield ray
    finally:
        if started_here:
            ray.shutdown()


def _ray_init(ray: Any, address: str | None) -> None:
    """A running cluster at `address` (doctor must be installed there and the uploads on shared storage),
    or a local instance whose workers import this very checkout."""
    root = str(Path(__file__).resolve().parents[2])
    env = {"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}}
    try:
        if address:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        else:
            ray.init(runtime_env=env, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    except Exception as err:  # noqa: BLE001 - Ray raises many kinds; the user gets one line
        raise UsageError(f"cannot start or reach Ray{' at ' + address if address else ''}: {err}") from err


class _progress:
    """A rich progress bar on stderr when stderr is a terminal; nothing otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar: Any = None

    def __enter__(self) -> Callable[[], None]:
        if not sys.stderr.isatty():
            return lambda: None
        from rich.console import Console
        from rich.progress import Progress
        self.bar = Progress(console=Console(stderr=True), transient=True)
        self.bar.start()
        task = self.bar.add_task("ingesting", total=self.total)
        return lambda: self.bar.update(task, advance=1)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def expand_paths(paths: Iterable[str]) -> list[str]:
    """The uploads named: a path as given, or `@FILE` for a file listing one upload per line."""
    out: list[str] = []
    for path in paths:
        if path.startswith("@"):
            out.extend(line.strip() for line in Path(path[1:]).read_text().splitlines() if line.strip())
        else:
            out.append(path)
    return out
