"""Stream a file's lines to line probes, touching only lines that contain a trigger.

Fast path: GNU grep -F (Aho-Corasick over all triggers at once) prints the candidate lines with
their numbers; Python parses only those. Fallback (no grep, compressed input): a chunked Python
scan with one compiled alternation of the triggers. Memory stays bounded either way: lines are
cut to MAX_LINE characters and nothing but candidate lines is ever held.
"""
from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import tempfile
from typing import Iterable, Iterator

from doctor.probing.inputs import InputFile
from doctor.probing.lines import MAX_LINE

GREP_MIN_BYTES = 4 * 2**20   # below this, starting grep costs more than it saves
CHUNK = 4 * 2**20


def candidate_lines(item: InputFile, triggers: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, line) for every line containing one of the triggers, in file order."""
    words = sorted({t for t in triggers if t})
    if not words:
        return
    grep = shutil.which("grep")
    if grep and not item.compressed and item.path.stat().st_size >= GREP_MIN_BYTES:
        yield from _grep_lines(grep, item, words)
    else:
        yield from _python_lines(item, words)


def _grep_lines(grep: str, item: InputFile, words: list[str]) -> Iterator[tuple[int, str]]:
    with tempfile.NamedTemporaryFile("w", suffix=".pat", delete=False, encoding="utf-8") as pat:
        pat.write("\n".join(words) + "\n")
    env = dict(os.environ, LC_ALL="C")
    proc = subprocess.Popen([grep, "-n", "-a", "-F", "-f", pat.name, "--", str(item.path)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert proc.stdout is not None
        while True:
            raw = proc.stdout.readline(MAX_LINE)
            if not raw:
                break
            if not raw.endswith(b"\n"):          # an over-long line: drop the rest of it
                _skip_to_newline(proc.stdout)
            number, _, text = raw.partition(b":")
            if number.isdigit():
                yield int(number), text.decode("utf-8", "replace").rstrip("\r\n")
    finally:
        proc.stdout.close() if proc.stdout else None
        proc.kill()
        proc.wait()
        os.unlink(pat.name)


def _skip_to_newline(stream) -> None:
    while True:
        rest = stream.readline(1 << 20)
        if not rest or rest.endswith(b"\n"):
            return


def _python_lines(item: InputFile, words: list[str]) -> Iterator[tuple[int, str]]:
    pattern = re.compile("|".join(re.escape(w) for w in words))
    opener = gzip.open if item.compressed else open
    line_no = 1
    carry = ""
    try:
        with opener(item.path, "rb") as fh:
            while True:
                block = fh.read(CHUNK)
                text = carry + block.decode("utf-8", "replace") if block else carry
                if not block:
                    if text:
                        yield from _matches(pattern, text, line_no)
                    return
                cut = text.rfind("\n")
                if cut < 0:
                    carry = text[-MAX_LINE:] if len(text) > MAX_LINE else text
                    continue
                body, carry = text[: cut + 1], text[cut + 1:]
                yield from _matches(pattern, body, line_no)
                line_no += body.count("\n")
    except (EOFError, OSError):
        return   # truncated compressed input: what was read has been scanned


def _matches(pattern: re.Pattern[str], text: str, first_line: int) -> Iterator[tuple[int, str]]:
    last_start = -1
    line_no, counted_to = first_line, 0
    for m in pattern.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if start == last_start:
            continue
        last_start = start
        line_no += text.count("\n", counted_to, start)
        counted_to = start
        end = text.find("\n", m.end())
        line = text[start: end if end >= 0 else len(text)]
        if len(line) > MAX_LINE:
            offset = m.start() - start
            line = line[max(0, offset - MAX_LINE // 2): offset + MAX_LINE // 2]
        yield line_no, line.rstrip("\r")
