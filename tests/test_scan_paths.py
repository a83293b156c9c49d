"""Every scan path picks the same lines with the same numbers as a plain reading of the file does.

The reference is `naive()`: split the file on newlines, keep each line holding a trigger (whole, or
the MAX_LINE window around its first trigger when longer), and, for samples, each whole line of at
most MAX_LINE bytes lying inside a sample window. Against it: the block loop with any block size
and the file cut into any byte ranges (as the parallel workers cut it), Hyperscan and `re` finders,
rg and grep, real hsgrep worker processes, and workers that fail or die mid-output.
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doctor.probing import blocks, parallel, scan
from doctor.probing.blocks import LEAD, MAX_LINE, Sampling, sample_windows, scan_range
from doctor.probing.external import external_hits, external_scanner
from doctor.probing.finders import hyperscan_finder, regex_finder
from doctor.probing.inputs import InputFile

WORDS = ("NCCL WARN", "Timeout", "Error", "ab")
SAMPLE_WORDS = ("step_time",)
HAS_HYPERSCAN = importlib.util.find_spec("hyperscan") is not None

line = st.one_of(
    st.tuples(st.sampled_from(WORDS), st.integers(0, 30)).map(lambda t: "line " + t[0] + " tail" * t[1]),
    st.integers(0, 600).map(lambda n: "[rank3]: step_time 0.41s " + "z" * n),
    st.integers(0, 40).map(lambda n: "plain text " * n),
    st.tuples(st.integers(3000, 12000), st.sampled_from(WORDS), st.integers(0, 6000))
      .map(lambda t: "x" * t[0] + t[1] + "y" * t[2]),                      # over MAX_LINE, or nearly
    st.sampled_from(["x" * (MAX_LINE - 1) + "ab", "ab" + "x" * (MAX_LINE - 1), "é" * 2100 + "Error"]),
)
log = st.tuples(st.lists(line, min_size=1, max_size=60), st.booleans(), st.booleans()).map(
    lambda t: ("\r\n" if t[2] else "\n").join(t[0]).encode() + (b"\n" if t[1] else b""))


def naive(data: bytes, windows: tuple[tuple[int, int], ...] = ()) -> tuple[list, list]:
    found, samples, at = [], [], 0
    pieces = data.split(b"\n")
    for number, text in enumerate(pieces, 1):
        ends_line = number < len(pieces)
        starts = [text.find(w.encode()) for w in WORDS if w.encode() in text]
        if starts:
            start = max(0, min(starts) - LEAD)
            found.append((number, text.rstrip(b"\r") if len(text) <= MAX_LINE else text[start: start + MAX_LINE].rstrip(b"\r")))
        inside = any(a <= at and at + len(text) + 1 <= b for a, b in windows)
        if ends_line and inside and len(text) <= MAX_LINE and any(w.encode() in text for w in SAMPLE_WORDS):
            samples.append((number, text.rstrip(b"\r")))
        at += len(text) + 1
    return found, samples


def scan_cut(path: Path, cuts: list[int], find, sampling) -> tuple[list, list, int]:
    """Scan each byte range apart and renumber, as parallel.py does with its workers."""
    found, samples, base = [], [], 0
    with path.open("rb") as fh:
        for start, end in zip(cuts, cuts[1:]):
            hits = scan_range(fh, start, end, find, sampling)
            try:
                while True:
                    hit = next(hits)
                    (samples if hit.sampled else found).append((base + hit.line_no, hit.text))
            except StopIteration as done:
                base += done.value
    return found, samples, base


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=log, chunk=st.sampled_from([7, 64, 1000, 4096, 5000, 1 << 16, 4 << 20]), rnd=st.randoms(use_true_random=False),
       window=st.sampled_from([50, 700, 9000]))
def test_any_blocks_and_byte_ranges_give_the_plain_reading(data: bytes, chunk: int, rnd, window: int) -> None:
    cuts = sorted([0, len(data)] + [rnd.randrange(len(data) + 1) for _ in range(rnd.randrange(4))])
    windows = sample_windows([rnd.randrange(len(data) + 1) for _ in range(rnd.randrange(4))], window)
    finders = [regex_finder(WORDS)] + ([hyperscan_finder(WORDS)] if HAS_HYPERSCAN else [])
    saved = blocks.CHUNK
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scan.log"
        path.write_bytes(data)
        try:
            blocks.CHUNK = chunk
            for find in finders:
                found, samples, newlines = scan_cut(path, cuts, find, Sampling(regex_finder(SAMPLE_WORDS), windows))
                assert (found, samples) == naive(data, windows)
                assert newlines == data.count(b"\n")
        finally:
            blocks.CHUNK = saved


@pytest.mark.parametrize("name", ["rg", "grep"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=log)
def test_external_scanners_give_the_plain_reading(name: str, data: bytes) -> None:
    argv = external_scanner(name)
    if not argv or name not in argv[0]:
        pytest.skip(f"{name} is not installed")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scan.log"
        path.write_bytes(data)
        found = [(hit.line_no, hit.text) for hit in external_hits(argv, InputFile(path, "scan.log", "n"), list(WORDS))]
    assert found == naive(data)[0]


def big_log(path: Path) -> bytes:
    """About 6 MB with every kind of line, several over-long ones, CRLF in places, no final newline."""
    rows = []
    for i in range(60_000):
        rows.append(f"[rank{i % 8}]: step {i} step_time 0.4{i % 10}s data_time 0.01s")
        if i % 997 == 0:
            rows.append(f"[rank{i % 8}]: NCCL WARN net timeout at step {i}\r")
        if i % 15_000 == 7:
            rows.append("x" * (5 * 2**20 if i == 7 else 9000) + "Error" + "y" * 3000)
    data = "\n".join(rows).encode()
    path.write_bytes(data)
    return data


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, bytes]:
    path = tmp_path_factory.mktemp("scan") / "big.log"
    return path, big_log(path)


def scan_file(path: Path, monkeypatch, **env: str) -> tuple[list, list]:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    hits = list(scan.scan_lines(InputFile(path, path.name, "n"), WORDS, SAMPLE_WORDS))
    return ([(n, text.encode()) for n, text, sampled in hits if not sampled],
            [(n, text.encode()) for n, text, sampled in hits if sampled])


def expected(data: bytes) -> tuple[list, list]:
    found, samples = naive(data, sample_windows(scan.sample_points(len(data)), scan.SAMPLE_BYTES))
    return [(n, t.decode("utf-8", "replace").encode()) for n, t in found], [(n, t.decode("utf-8", "replace").encode()) for n, t in samples]


@pytest.mark.skipif(not HAS_HYPERSCAN, reason="hyperscan is not installed (extra 'fast')")
@pytest.mark.parametrize("jobs", ["1", "3", "8"])
def test_parallel_workers_give_the_plain_reading(big, monkeypatch, jobs: str) -> None:
    path, data = big
    found, samples = scan_file(path, monkeypatch, DOCTOR_SCAN_JOBS=jobs, DOCTOR_SCANNER="hyperscan")
    assert (found, samples) == expected(data)
    assert len(samples) > 100 and any(text.endswith(b"Error" + b"y" * 3000) for _n, text in found)


@pytest.mark.parametrize("scanner", ["python", "grep"])
def test_other_scanners_give_the_same_lines_and_samples(big, monkeypatch, scanner: str) -> None:
    path, data = big
    assert scan_file(path, monkeypatch, DOCTOR_SCANNER=scanner) == expected(data)


@pytest.mark.skipif(not HAS_HYPERSCAN, reason="hyperscan is not installed (extra 'fast')")
@pytest.mark.parametrize("worker", [
    [sys.executable, "-c", "import sys; sys.exit(3)"],                                     # fails at once
    ["/bin/sh", "-c", f"'{sys.executable}' -m doctor.probing.hsgrep | head -c 3000"],       # dies mid-record
])
def test_a_failed_worker_is_replaced_by_an_in_process_scan_of_its_range(big, monkeypatch, worker: list[str]) -> None:
    path, data = big
    monkeypatch.setattr(parallel, "WORKER", worker)
    assert scan_file(path, monkeypatch, DOCTOR_SCAN_JOBS="3", DOCTOR_SCANNER="hyperscan") == expected(data)


@pytest.mark.skipif(not HAS_HYPERSCAN, reason="hyperscan is not installed (extra 'fast')")
def test_no_temporary_file_for_a_worker_means_the_scan_runs_here(big, monkeypatch) -> None:
    path, data = big

    def full_disk() -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(parallel.tempfile, "TemporaryFile", full_disk)
    assert scan_file(path, monkeypatch, DOCTOR_SCAN_JOBS="3", DOCTOR_SCANNER="hyperscan") == expected(data)


def test_a_failing_external_scanner_falls_back_to_the_in_process_scan(big, monkeypatch) -> None:
    path, data = big
    monkeypatch.setattr(scan, "external_scanner", lambda choice: ["/bin/sh", "-c", "exit 2", "--"])
    assert scan_file(path, monkeypatch, DOCTOR_SCANNER="grep") == expected(data)


def test_jobs_follow_the_cpus_and_the_size(monkeypatch) -> None:
    monkeypatch.delenv("DOCTOR_SCAN_JOBS", raising=False)
    assert parallel.jobs_for(parallel.MIN_RANGE - 1) == 1
    assert 1 <= parallel.jobs_for(2**40) <= parallel.MAX_JOBS
    monkeypatch.setenv("DOCTOR_SCAN_JOBS", "5")
    assert parallel.jobs_for(10) == 5


def test_sample_windows_merge_overlaps() -> None:
    assert sample_windows([50, 0, 10, 200], 40) == ((0, 90), (200, 240))
