"""Scan one big log on every core: disjoint byte ranges, one hsgrep worker each, hits merged in file order.

Range k's lines are numbered from 1 by its worker; the parent adds the newlines of ranges 0..k-1,
which each worker reports last (hsgrep.py). Worker 0 writes to a pipe that is parsed as it scans;
the others write to unlinked temporary files (candidate lines only, so small) read in turn, so
memory stays bounded whatever the file. A worker that fails (no hyperscan in that interpreter,
killed) is replaced by the same scan in this process, from where its output stopped.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Generator, Iterator, NamedTuple

from doctor.probing.blocks import Hit, Sampling, scan_range
from doctor.probing.finders import best_finder

_ROOT = str(Path(__file__).resolve().parents[2])   # so the workers import this very doctor
# glibc gives each freed 4 MiB block back to the kernel and faults the next one in again: 0.75 of
# a worker's 1.8 CPU s per GB was that; keeping big blocks on the heap costs nothing here.
WORKER_ENV = {"MALLOC_MMAP_THRESHOLD_": str(64 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(256 * 2**20)}
WORKER = [sys.executable, "-m", "doctor.probing.hsgrep"]
MIN_RANGE = 32 * 2**20   # a worker's least share: below it, starting one more costs more than it saves
MAX_JOBS = 8


class Worker(NamedTuple):
    proc: subprocess.Popen
    out: IO[bytes]          # its stdout: the pipe (range 0) or a temporary file
    start: int
    end: int


def jobs_for(size: int) -> int:
    """How many ranges: one per usable CPU, none under MIN_RANGE; DOCTOR_SCAN_JOBS=N forces N."""
    forced = os.environ.get("DOCTOR_SCAN_JOBS", "")
    if forced.isdigit() and int(forced) > 0:
        return min(int(forced), 64)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cpus, MAX_JOBS, size // MIN_RANGE))


def parallel_hits(path: Path, words: tuple[str, ...], sample_words: tuple[str, ...],
                  windows: tuple[tuple[int, int], ...], jobs: int) -> Iterator[Hit]:
    """Every hit of the file, in order, numbered from line 1 of the file: lines holding one of `words`,
    and lines of the sample `windows` holding one of `sample_words`."""
    size = path.stat().st_size
    cuts = [size * k // jobs for k in range(jobs + 1)]
    job = {"path": str(path), "words": list(words), "sample_words": list(sample_words), "windows": list(windows)}
    workers: list[Worker] = []
    try:
        for k, (start, end) in enumerate(zip(cuts, cuts[1:])):
            workers.append(_start(dict(job, start=start, end=end), piped=k == 0))
    except OSError:                          # no process or temporary file to be had: all of it here
        for worker in workers:
            _stop(worker)
        yield from _scan_here(path, job, 0, size, base=0, given=0)
        return
    try:
        base = 0
        for worker in workers:
            base += yield from _collect(worker, base, path, job)
    finally:
        for worker in workers:
            _stop(worker)


def _start(job: dict, piped: bool) -> Worker:
    out: IO[bytes] | int = subprocess.PIPE if piped else tempfile.TemporaryFile()
    env = dict(os.environ, **WORKER_ENV, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(WORKER, stdin=subprocess.PIPE, stdout=out,
                            stderr=subprocess.DEVNULL, env=env, bufsize=1 << 20)
    assert proc.stdin is not None
    try:
        proc.stdin.write(json.dumps(job).encode())
        proc.stdin.close()
    except OSError:                         # it died at once: its range is scanned here
        pass
    return Worker(proc, proc.stdout if piped else out, job["start"], job["end"])  # type: ignore[arg-type]


def _collect(worker: Worker, base: int, path: Path, job: dict) -> Generator[Hit, None, int]:
    """The worker's hits renumbered from `base`; returns its newline count."""
    if worker.out is not worker.proc.stdout:
        worker.proc.wait()
        worker.out.seek(0)
    given, newlines = 0, -1
    for raw in worker.out:
        if not raw.endswith(b"\n"):          # cut off mid-record: the worker was killed
            break
        if raw.startswith(b"#"):
            newlines = int(raw[1:])
            break
        sampled = raw.startswith(b"s")
        number, _, text = raw[sampled:-1].partition(b":")
        yield Hit(base + int(number), text, sampled)
        given += 1
    if worker.proc.wait() == 0 and newlines >= 0:
        return newlines
    return (yield from _scan_here(path, job, worker.start, worker.end, base, given))


def _scan_here(path: Path, job: dict, start: int, end: int, base: int, given: int) -> Generator[Hit, None, int]:
    """A range scanned in this process (its worker failed), skipping the `given` hits the worker
    printed before it stopped."""
    find = best_finder(tuple(job["words"]))
    sampling = Sampling(best_finder(tuple(job["sample_words"])), tuple(job["windows"])) if job["sample_words"] else None
    with path.open("rb") as fh:
        scan = scan_range(fh, start, end, find, sampling)
        try:
            while True:
                hit = next(scan)
                if given:
                    given -= 1
                    continue
                yield Hit(base + hit.line_no, hit.text, hit.sampled)
        except StopIteration as done:
            return int(done.value)


def _stop(worker: Worker) -> None:
    if worker.proc.poll() is None:
        worker.proc.kill()
    worker.proc.wait()
    worker.out.close()
