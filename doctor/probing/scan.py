"""Stream a file's lines to line probes, touching only lines that contain a trigger.

Two kinds of line come out, in one pass over the file: trigger lines (every line holding a trigger
of the full-scan probes) and sample lines (lines of SAMPLES evenly spaced windows holding a trigger
of a sampled probe: per-step timing lines fill a big log, and a median needs a sample, not all).

Which scan runs, fastest first (DOCTOR_SCANNER=hyperscan|rg|grep|python picks one):
- plain files from GREP_MIN_BYTES, with the optional `hyperscan` module (extra `fast`): parallel.py,
  byte ranges scanned by one hsgrep worker per core (per GB: Hyperscan 0.38 CPU s, the newline
  count that keeps line numbers exact 0.37 s, reading 0.14 s);
- without it, rg or grep -F as a child printing candidate lines (external.py), then a sample pass;
- small or compressed files, or no scanner: blocks.scan_blocks in this process, with Hyperscan or one
  `re` alternation of the triggers (finders.py). A truncated gzip is scanned as far as it goes.
Memory stays bounded either way: lines are cut to MAX_LINE characters and only hits are held.
"""
from __future__ import annotations

import gzip
import importlib.util
import os
from typing import BinaryIO, Iterable, Iterator

from doctor.probing.blocks import CHUNK, Finder, Hit, Sampling, sample_windows, scan_blocks, scan_range
from doctor.probing.external import external_hits, external_scanner
from doctor.probing.finders import best_finder, no_finder
from doctor.probing.inputs import InputFile, read_upto
from doctor.probing.parallel import jobs_for, parallel_hits

GREP_MIN_BYTES = 4 * 2**20      # below this, starting a child costs more than it saves
SAMPLE_ALL_BELOW = 64 * 2**20   # smaller inputs are read whole by sampled probes too
SAMPLES = 16                    # evenly spaced windows of a bigger input ...
SAMPLE_BYTES = 2**15            # ... of this many bytes each (a few hundred step lines)


def scan_lines(item: InputFile, triggers: Iterable[str],
               sample_triggers: Iterable[str] = ()) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, sampled) in file order: trigger lines, and sample-window lines holding a
    sample trigger (sampled=True; only when sample_triggers is given: offline.py gives them for inputs of
    SAMPLE_ALL_BELOW and up, and hands smaller ones whole to the sampled probes)."""
    words, sample_words = _words(triggers), _words(sample_triggers)
    for hit in _hits(item, words, sample_words, os.environ.get("DOCTOR_SCANNER", "")):
        yield hit.line_no, hit.text.decode("utf-8", "replace"), hit.sampled


def sample_points(size: int) -> tuple[int, ...]:
    stride = max(1, size // SAMPLES)
    return tuple(k * stride for k in range(SAMPLES))


def _hits(item: InputFile, words: tuple[str, ...], sample_words: tuple[str, ...], choice: str) -> Iterator[Hit]:
    size = -1 if item.compressed else item.path.stat().st_size
    windows = sample_windows(sample_points(size), SAMPLE_BYTES) if sample_words and size > 0 else ()
    if size >= GREP_MIN_BYTES and choice in ("", "hyperscan") and words and _has_hyperscan():
        yield from parallel_hits(item.path, words, sample_words if windows else (), windows, jobs_for(size))
        return
    find = best_finder(words, choice)
    sampling = Sampling(best_finder(sample_words, choice), windows) if windows else None
    if size >= GREP_MIN_BYTES and (argv := external_scanner(choice)) and words:
        if not (yield from external_hits(argv, item, list(words))):   # the scanner failed before printing
            yield from _in_process(item, find, None)
        if sampling:
            yield from _in_process(item, no_finder, sampling)
    else:
        yield from _in_process(item, find, sampling)


def _in_process(item: InputFile, find: Finder, sampling: Sampling | None) -> Iterator[Hit]:
    try:
        if item.compressed:
            with gzip.open(item.path, "rb") as stream:
                yield from scan_blocks(_stream_blocks(stream), find, sampling)
        else:
            with item.path.open("rb") as fh:
                yield from scan_range(fh, 0, item.path.stat().st_size, find, sampling)
    except OSError:
        return


def _stream_blocks(stream: BinaryIO) -> Iterator[bytes]:
    while block := read_upto(stream, CHUNK):   # a damaged gzip ends here
        yield block


def _has_hyperscan() -> bool:
    return importlib.util.find_spec("hyperscan") is not None


def _words(triggers: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({t for t in triggers if t}))
