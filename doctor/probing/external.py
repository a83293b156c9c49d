"""Candidate lines from an external scanner, when Hyperscan is not installed: ripgrep, else GNU grep.

The scanner runs as a child printing `N:line` (grep -n's format) while this process parses what it
printed on another core. CPU s per GB for the ~300 probe triggers, measured here: rg -F 2.0, GNU
grep -F 4.3 (Hyperscan: 0.45). Lines are cut to the same window around their first trigger as the
in-process scan cuts them (blocks.py), so every path picks the same lines with the same text.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from typing import IO, Generator

from doctor.probing.blocks import LEAD, MAX_LINE, Hit
from doctor.probing.inputs import InputFile


def external_scanner(choice: str) -> list[str] | None:
    """argv of rg or grep (without pattern file and path), or None when neither is there or chosen."""
    rg = shutil.which("rg") if choice in ("", "rg") else None
    if rg:   # no mmap: its pages would count as our RSS; no transcoding: the same bytes grep sees
        return [rg, "--no-config", "--no-mmap", "--encoding", "none", "--color", "never", "--no-filename", "-n", "-a", "-F"]
    grep = shutil.which("grep") if choice in ("", "grep") else None
    return [grep, "-n", "-a", "-F"] if grep else None


def external_hits(argv: list[str], item: InputFile, words: list[str]) -> Generator[Hit, None, bool]:
    """Candidate lines from the scanner; returns False when it failed before printing any
    (exit status over 1: grep's 'error')."""
    printed, status = False, 0
    with tempfile.NamedTemporaryFile("w", suffix=".pat", delete=False, encoding="utf-8") as pat:
        pat.write("\n".join(words) + "\n")
    proc = subprocess.Popen([*argv, "-f", pat.name, "--", str(item.path)], bufsize=1 << 20, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=dict(os.environ, LC_ALL="C"))
    try:
        assert proc.stdout is not None
        while raw := proc.stdout.readline(HEAD):
            if not raw.endswith(b"\n"):          # a line over MAX_LINE: keep the window around its first trigger
                raw = _long_line(raw, proc.stdout, [w.encode() for w in words])
            number, _, text = raw.partition(b":")
            text = text[:-1] if text.endswith(b"\n") else text
            if len(text) > MAX_LINE:              # it fitted in HEAD with its `N:`, but is over MAX_LINE
                text = _window(text, [w.encode() for w in words])
            if number.isdigit() and text.strip(b"\r"):
                printed = True
                yield Hit(int(number), text.rstrip(b"\r"), False)
        status = proc.wait()
    finally:
        proc.stdout.close() if proc.stdout else None
        proc.kill()
        proc.wait()
        os.unlink(pat.name)
    return printed or status <= 1


HEAD = MAX_LINE + 64    # `N:` and a line of up to MAX_LINE bytes


def _long_line(head: bytes, stream: IO[bytes], words: list[bytes]) -> bytes:
    """`N:` + the window of an over-long line around its first trigger; the rest of it is read and dropped."""
    number, _, text = head.partition(b":")
    while not any(w in text for w in words):
        chunk = b"" if text.endswith(b"\n") else stream.readline(1 << 20)
        if not chunk:
            return number + b":"               # no trigger after all: nothing to report
        text = text[-MAX_LINE:] + chunk       # the tail already searched, for a trigger across the cut
    ended = text.endswith(b"\n")
    window = _window(text, words)
    if len(window) < MAX_LINE and not ended:  # the window runs on past what was read
        window += stream.readline(MAX_LINE - len(window))
        ended = window.endswith(b"\n")
    if not ended:
        _skip_to_newline(stream)
    return number + b":" + window


def _window(text: bytes, words: list[bytes]) -> bytes:
    found = [i for i in (text.find(w) for w in words) if i >= 0]
    start = max(0, min(found, default=0) - LEAD)
    return text[start: start + MAX_LINE]


def _skip_to_newline(stream: IO[bytes]) -> None:
    while True:
        rest = stream.readline(1 << 20)
        if not rest or rest.endswith(b"\n"):
            return
