"""Stream a file's lines to line probes, touching only lines that contain a trigger.

Files over GREP_MIN_BYTES go through an external scanner, a child process that prints candidate
lines with their numbers (grep -n's format) while this process parses them on another core.
Fastest first, CPU s per GB for the ~170 probe triggers measured here: hsgrep.py, Hyperscan in a
Python child, when the optional `hyperscan` module is installed (about 1); ripgrep when installed
(rg -F, 2.0); GNU grep -F (4.3). Small and compressed files, or no scanner: a chunked in-process
scan, with Hyperscan or one `re` alternation of the triggers (finders.py).
DOCTOR_SCANNER=hyperscan|rg|grep|python picks one. Memory stays bounded either way: lines are
cut to MAX_LINE characters and nothing but candidate lines is ever held. A line longer than that (a
progress bar redrawn with \r for hours is one line) is cut to a window around its first trigger,
the same window on both paths. A truncated gzip is scanned as far as it goes.
"""
from __future__ import annotations

import gzip
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Generator, Iterable, Iterator

from doctor.probing.finders import Finder, hyperscan_finder, regex_finder
from doctor.probing.inputs import InputFile, read_upto
from doctor.probing.lines import MAX_LINE

_ROOT = str(Path(__file__).resolve().parents[2])   # so the hsgrep child imports this very doctor
# glibc gives each freed 4 MiB block back to the kernel and faults the next one in again: 0.75 of
# hsgrep's 1.8 CPU s per GB was that; keeping big blocks on the heap costs nothing here.
HSGREP_ENV = {"MALLOC_MMAP_THRESHOLD_": str(64 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(256 * 2**20)}
GREP_MIN_BYTES = 4 * 2**20   # below this, starting grep costs more than it saves
CHUNK = 4 * 2**20


def candidate_lines(item: InputFile, triggers: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, line) for every line containing one of the triggers, in file order."""
    words = tuple(sorted({t for t in triggers if t}))
    if not words:
        return
    choice = os.environ.get("DOCTOR_SCANNER", "")
    argv = scanner(choice)
    if argv and not item.compressed and item.path.stat().st_size >= GREP_MIN_BYTES:
        if (yield from _grep_lines(argv, item, list(words))):
            return
    fast = hyperscan_finder(words) if choice in ("", "hyperscan") else None
    yield from _python_lines(item, fast or regex_finder(words))


def scanner(choice: str | None = None) -> list[str] | None:
    """argv of the external scanner to use (without pattern file and path), or None for the in-process scan."""
    choice = os.environ.get("DOCTOR_SCANNER", "") if choice is None else choice
    if choice in ("", "hyperscan") and importlib.util.find_spec("hyperscan") is not None:
        return [sys.executable, "-m", "doctor.probing.hsgrep"]
    rg = shutil.which("rg") if choice in ("", "rg") else None
    if rg:   # no mmap: its pages would count as our RSS; no transcoding: the same bytes grep sees
        return [rg, "--no-config", "--no-mmap", "--encoding", "none", "--color", "never", "--no-filename", "-n", "-a", "-F"]
    grep = shutil.which("grep") if choice in ("", "grep") else None
    return [grep, "-n", "-a", "-F"] if grep else None


def _grep_lines(argv: list[str], item: InputFile, words: list[str]) -> Generator[tuple[int, str], None, bool]:
    """Candidate lines from an external scanner; returns False when it failed before printing any
    (exit status over 1: grep's 'error'; hsgrep without hyperscan, a frozen app without python -m)."""
    printed, status = False, 0
    with tempfile.NamedTemporaryFile("w", suffix=".pat", delete=False, encoding="utf-8") as pat:
        pat.write("\n".join(words) + "\n")
    env = dict(os.environ, LC_ALL="C")
    if "doctor.probing.hsgrep" in argv:
        args = [pat.name, str(item.path)]
        env.update(HSGREP_ENV, PYTHONPATH=_ROOT + os.pathsep + env.get("PYTHONPATH", ""))
    else:
        args = ["-f", pat.name, "--", str(item.path)]
    proc = subprocess.Popen([*argv, *args], bufsize=1 << 20, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert proc.stdout is not None
        while True:
            raw = proc.stdout.readline(MAX_LINE)
            if not raw:
                break
            if not raw.endswith(b"\n"):          # an over-long line: keep a window around a trigger
                raw = _long_line(raw, proc.stdout, [w.encode() for w in words])
            number, _, text = raw.partition(b":")
            if number.isdigit():
                printed = True
                yield int(number), text.decode("utf-8", "replace").rstrip("\r\n")
        status = proc.wait()
    finally:
        proc.stdout.close() if proc.stdout else None
        proc.kill()
        proc.wait()
        os.unlink(pat.name)
    return printed or status <= 1


def _long_line(head: bytes, stream, words: list[bytes]) -> bytes:
    """`N:` + the window of an over-long grep line around its first trigger; the rest is read and dropped."""
    number, _, text = head.partition(b":")
    if any(w in text for w in words):
        _skip_to_newline(stream)
        return head
    before = text[-LEAD:]
    while chunk := stream.readline(1 << 20):
        data = before + chunk
        hits = [i for i in (data.find(w) for w in words) if i >= 0]
        if hits:
            start = max(0, min(hits) - LEAD)
            window = data[start: start + MAX_LINE]
            if len(window) < MAX_LINE and not chunk.endswith(b"\n"):
                window += stream.readline(start + MAX_LINE - len(data))
            if not window.endswith(b"\n"):
                _skip_to_newline(stream)
            return number + b":" + window.rstrip(b"\r\n")
        if chunk.endswith(b"\n"):
            break
        before = data[-LEAD:]
    return head


def _skip_to_newline(stream) -> None:
    while True:
        rest = stream.readline(1 << 20)
        if not rest or rest.endswith(b"\n"):
            return


def _python_lines(item: InputFile, find: Finder) -> Iterator[tuple[int, str]]:
    """The in-process scan: blocks of bytes, whole lines only, `find` marks the candidate lines."""
    opener = gzip.open if item.compressed else open
    line_no, carry, reported = 1, b"", False   # reported: the current over-long line already gave its window
    try:
        with opener(item.path, "rb") as fh:
            while True:
                block = read_upto(fh, CHUNK) if item.compressed else fh.read(CHUNK)   # a damaged gzip ends here
                data = carry + block
                if not block:
                    if data and not reported:
                        yield from _matches(find, data, line_no)
                    return
                cut = data.rfind(b"\n")
                if cut < 0:                      # still inside one line longer than CHUNK
                    starts = [] if reported else find(data)
                    if starts:
                        yield line_no, _text(_window(data, starts[0]))
                        reported = True
                    carry = b"" if reported else data[-MAX_LINE:]
                    continue
                body, carry = data[: cut + 1], data[cut + 1:]
                if reported:                     # the end of the long line: already reported
                    body = body[body.index(b"\n") + 1:]
                    line_no, reported = line_no + 1, False
                line_no = yield from _matches(find, body, line_no)
    except OSError:
        return


LEAD = MAX_LINE // 8   # how much of an over-long line is kept before its trigger (the message follows it)


def _window(data: bytes, at: int) -> bytes:
    """MAX_LINE bytes of an over-long line, from LEAD before position `at`."""
    return data[max(0, at - LEAD): max(0, at - LEAD) + MAX_LINE]


def _text(line: bytes) -> str:
    return line.decode("utf-8", "replace").rstrip("\r\n")


def _matches(find: Finder, data: bytes, first_line: int) -> Generator[tuple[int, str], None, int]:
    """The lines of `data` (whole lines) that hold a trigger, numbered from first_line; returns the
    number of the line after `data`. Each newline is counted once (counting is a third of the CPU)."""
    last_start = -1
    line_no, counted_to = first_line, 0
    for at in find(data):
        start = data.rfind(b"\n", 0, at) + 1
        if start == last_start:
            continue
        last_start = start
        line_no += data.count(b"\n", counted_to, start)
        counted_to = start
        end = data.find(b"\n", at)
        line = data[start: end if end >= 0 else len(data)]
        yield line_no, _text(_window(line, at - start) if len(line) > MAX_LINE else line)
    return line_no + data.count(b"\n", counted_to)
