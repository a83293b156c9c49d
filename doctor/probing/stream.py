"""The third probe shape: a StreamProbe reads one large or binary artifact from the file itself.

Line probes see lines and document probes see a whole text of at most 16 MiB. Profiler traces (a 2 GB JSON
object) and memory snapshots (a pickle) are neither: the probe is handed a binary stream, decompressed when
the file is gzip, and reads it incrementally. It recognises its artifact from the first bytes (`sniff`), and
a file it claims is read by it alone: a trace is not a log, so line probes do not scan it.

A probe that finds the content unreadable or unsafe raises StreamRefused with a one-line reason; the reader
records it as a failed probe and nothing else of the file is used.
"""
from __future__ import annotations

import gzip
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, ClassVar, Iterator

from doctor.facts import Fact
from doctor.probing.contract import ParseContext

GZIP_MAGIC = b"\x1f\x8b"
PARALLEL_MIN_BYTES = 64 << 20      # below this in total, starting worker processes costs more than it saves


UNREADABLE = (ValueError, OverflowError, RecursionError, MemoryError)   # what one hostile input may raise a parser


def refusal_reason(exc: BaseException) -> str:
    """One line saying why an input could not be read."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to read; not read"
    if isinstance(exc, MemoryError):
        return "too large to read in memory; not read"
    detail = " ".join(str(exc).split())[:120]
    return f"unreadable ({exc.__class__.__name__}: {detail}); not read"


class StreamRefused(Exception):
    """The artifact was recognised but cannot or must not be read (truncated, hostile, too large)."""


class StreamProbe:
    """A reader of one artifact as a binary stream. sniff() recognises it by content; read() emits facts."""

    name: ClassVar[str] = ""
    yields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        """True when the first (decompressed) bytes of a file are this probe's artifact."""
        raise NotImplementedError

    def read(self, stream: BinaryIO, ctx: ParseContext) -> None:
        """Read the artifact from a binary stream and emit facts through ctx. Raise StreamRefused to refuse it."""
        raise NotImplementedError


@contextmanager
def open_binary(path: Path | str) -> Iterator[BinaryIO]:
    """The file's bytes, gunzipped on the fly when it starts with the gzip magic (whatever its name)."""
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    if compressed:
        with gzip.open(path, "rb") as stream:
            yield stream   # type: ignore[misc]
    else:
        with open(path, "rb") as stream:
            yield stream


def claims(probes: tuple[type[StreamProbe], ...], head: bytes) -> type[StreamProbe] | None:
    """The first stream probe that recognises this head, if any."""
    for probe_cls in probes:
        if probe_cls.sniff(head):
            return probe_cls
    return None


def parse_stream(probe_cls: type[StreamProbe], path: Path | str, source: str | None = None,
                 node: str = "") -> list[Fact]:
    """Run one stream probe over a file: the pure form used by tests and benches. May raise StreamRefused."""
    ctx = ParseContext(source=source or str(path), node=node, probe=probe_cls.name)
    with open_binary(path) as stream:
        probe_cls().read(stream, ctx)
    return ctx.facts


@dataclass(frozen=True)
class StreamJob:
    """One file a stream probe claimed: read later, possibly in another process."""

    probe: type[StreamProbe]
    path: str
    label: str
    node: str
    size: int


def read_one(job: StreamJob) -> tuple[list[Fact], str]:
    """(facts, "") or ([], the one-line reason the probe refused the file)."""
    ctx = ParseContext(source=job.label, node=job.node, probe=job.probe.name)
    try:
        with open_binary(job.path) as stream:
            job.probe().read(stream, ctx)
    except StreamRefused as exc:
        return [], str(exc)
    except UNREADABLE as exc:                       # one hostile file, refused alone
        return [], refusal_reason(exc)
    return ctx.facts, ""


def read_many(jobs: list[StreamJob]) -> list[tuple[list[Fact], str]]:
    """read_one for every job, in order; large sets on one process per CPU (a job's rank traces read side by side)."""
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers < 2 or sum(j.size for j in jobs) < PARALLEL_MIN_BYTES:
        return [read_one(j) for j in jobs]
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context
    try:
        with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
            return list(pool.map(read_one, jobs))
    except (OSError, BrokenProcessPool):     # no processes to be had here: read them one by one
        return [read_one(j) for j in jobs]
