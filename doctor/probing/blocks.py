"""Whole lines out of byte blocks: the lines that hold a trigger, and the lines of a few sample windows that hold a sample trigger.

The one loop every scan path shares (in this process, in the parallel hsgrep workers, for one byte
range of a file or a whole stream), so that all of them pick the same lines with the same numbers.
Lines come out as bytes, cut to MAX_LINE; a line longer than that (a progress bar redrawn with \\r
for hours is one line) is cut to a window around its first trigger. Nothing but the current block
and the hits is held, so memory stays bounded whatever the input.

Sample windows serve the probes that read statistics off lines repeating all through a log
(contract.LineProbe.sampled): a window is a range of absolute byte offsets, and a line is in it
when it lies wholly inside (newline included) and is at most MAX_LINE bytes long.
"""
from __future__ import annotations

from typing import BinaryIO, Callable, Generator, Iterable, Iterator, NamedTuple

MAX_LINE = 4096          # the same cap as doctor.probing.lines.MAX_LINE (imported there from here)
LEAD = MAX_LINE // 8     # how much of an over-long line is kept before its trigger (the message follows it)
CHUNK = 4 * 2**20

Finder = Callable[[bytes], list[int]]


class Hit(NamedTuple):
    line_no: int
    text: bytes          # without its line end, at most MAX_LINE bytes
    sampled: bool        # from a sample window (for sampled probes), not a trigger line


class Sampling(NamedTuple):
    find: Finder                            # the sampled probes' triggers
    windows: tuple[tuple[int, int], ...]    # absolute [start, end) byte ranges, ascending, disjoint


def sample_windows(points: Iterable[int], size: int) -> tuple[tuple[int, int], ...]:
    """[point, point + size) for each point, overlaps merged."""
    merged: list[tuple[int, int]] = []
    for point in sorted(points):
        if merged and point <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], point + size))
        else:
            merged.append((point, point + size))
    return tuple(merged)


def scan_blocks(blocks: Iterable[bytes], find: Finder, sampling: Sampling | None = None,
                offset: int = 0) -> Generator[Hit, None, int]:
    """The hits in `blocks` (consecutive bytes from absolute `offset`, starting at a line start);
    returns how many newlines were read, so the next range's lines can be numbered. Trigger hits
    come in line order, and so do sample hits; what a line yields never depends on where blocks
    are cut (so byte ranges scanned apart give what one scan gives)."""
    scan = _Scan(find, sampling, offset)
    for block in blocks:
        yield from scan.feed(block)
    return (yield from scan.end())


class _Scan:
    """One pass over consecutive blocks. A block is scanned where it lies, without copying it: first
    the line it finishes (the carry from the blocks before + its first line), then its whole lines
    in place; the partial last line is carried to the next block."""

    def __init__(self, find: Finder, sampling: Sampling | None, offset: int) -> None:
        self.find, self.sampling = find, sampling
        self.windows = list(sampling.windows) if sampling else []
        self.line_no, self.at, self.line_at = 1, offset, offset   # the line being read, next block's and its offset
        self.carry = b""             # that line so far (only its last MAX_LINE bytes once it is longer than a block)
        self.reported = False        # an over-long line whose window was found ...
        self.window, self.need = b"", 0   # ... and is still `need` bytes short

    def feed(self, block: bytes) -> Iterator[Hit]:
        first = block.find(b"\n")
        if self.need:
            yield from self._complete(block, first)
        if first < 0:
            self._long_line(block)
            if self.need == 0 and self.window:
                yield Hit(self.line_no, self.window.rstrip(b"\r"), False)
                self.window = b""
        else:
            yield from self._head(block[: first + 1], self.at + first - self.line_at)
            last = block.rfind(b"\n") + 1
            yield from self._samples(block, first + 1, last, self.at)
            self.line_no = yield from _matches(self.find, block, self.line_no, first + 1, last)
            self.carry, self.reported, self.line_at = block[last:], False, self.at + last
        self.at += len(block)

    def end(self) -> Generator[Hit, None, int]:
        if self.need or self.window:
            yield Hit(self.line_no, self.window.rstrip(b"\r"), False)
        elif self.carry and not self.reported:      # a last line without its newline
            yield from _matches(self.find, self.carry, self.line_no)
        return self.line_no - 1

    def _head(self, tail: bytes, length: int) -> Iterator[Hit]:
        """The line that ends in this block, `length` bytes long without its newline."""
        if self.reported:                     # an over-long line, already reported
            self.line_no += 1
            return
        line = self.carry + tail
        if length <= MAX_LINE:                # the carry holds it whole
            yield from self._samples(line, 0, len(line), self.line_at)
        self.line_no = yield from _matches(self.find, line, self.line_no)

    def _long_line(self, block: bytes) -> None:
        """A block inside a line longer than a block. Up to MAX_LINE bytes the line is kept whole (it
        may end short enough to be given whole); past that, the window around its first trigger."""
        data = self.carry + block
        if self.at + len(block) - self.line_at <= MAX_LINE:
            self.carry = data
            return
        starts = [] if self.reported else self.find(data)
        if starts:
            start = max(0, starts[0] - LEAD)
            self.window = data[start: start + MAX_LINE]
            self.need, self.reported = MAX_LINE - len(self.window), True
        self.carry = b"" if self.reported else data[-MAX_LINE:]

    def _complete(self, block: bytes, first: int) -> Iterator[Hit]:
        """More of an over-long line's window, from the next block, up to MAX_LINE or the line's end."""
        take = block[: min(self.need, first if first >= 0 else len(block))]
        self.window += take
        self.need -= len(take)
        if first >= 0 or not self.need:
            yield Hit(self.line_no, self.window.rstrip(b"\r"), False)
            self.window, self.need = b"", 0

    def _samples(self, data: bytes, lo: int, hi: int, data_at: int) -> Iterator[Hit]:
        """Sample hits among the whole lines data[lo:hi] (data[0] at absolute data_at, data[lo] starts
        line self.line_no): the lines lying wholly inside a window, none longer than MAX_LINE."""
        while self.windows and self.windows[0][1] <= data_at + lo:
            self.windows.pop(0)
        for start, end in self.windows:
            if start >= data_at + hi:
                break
            s, e = max(lo, start - data_at), min(hi, end - data_at)
            if s > lo and data[s - 1] != 10:          # mid-line: from the next line
                s = data.find(b"\n", s, hi) + 1
            e = data.rfind(b"\n", s, e) + 1
            if e > s:
                yield from _matches(self.sampling.find, data, self.line_no + data.count(b"\n", lo, s), s, e,  # type: ignore[union-attr]
                                    sampled=True)


def _matches(find: Finder, data: bytes, first_line: int, lo: int = 0, hi: int = -1,
             sampled: bool = False) -> Generator[Hit, None, int]:
    """The lines of data[lo:hi] (whole lines) that hold a trigger, numbered from first_line; returns
    the number of the line after them. Each newline is counted once (counting is a third of the CPU)."""
    hi = len(data) if hi < 0 else hi
    last_start = -1
    line_no, counted_to = first_line, lo
    for at in find(memoryview(data)[lo:hi]) if lo or hi < len(data) else find(data):
        at += lo
        start = max(lo, data.rfind(b"\n", lo, at) + 1)
        if start == last_start:
            continue
        last_start = start
        line_no += data.count(b"\n", counted_to, start)
        counted_to = start
        end = data.find(b"\n", at, hi)
        line = data[start: end if end >= 0 else hi]
        if len(line) <= MAX_LINE:
            yield Hit(line_no, line.rstrip(b"\r"), sampled)
        elif not sampled:                      # a sample is of whole lines only
            yield Hit(line_no, _window(line, at - start), sampled)
    return line_no + data.count(b"\n", counted_to, hi)


def _window(line: bytes, at: int) -> bytes:
    """MAX_LINE bytes of an over-long line, from LEAD before position `at`."""
    start = max(0, at - LEAD)
    return line[start: start + MAX_LINE].rstrip(b"\r")


def line_start(fh: BinaryIO, pos: int) -> int:
    """Offset of the first line that starts at or after `pos` (at least the file's size when none does).
    Neighbouring byte ranges ask this of the same offset, so every line lands in exactly one range."""
    if pos <= 0:
        return 0
    fh.seek(pos - 1)
    at = pos - 1
    while chunk := fh.read(1 << 16):
        newline = chunk.find(b"\n")
        if newline >= 0:
            return at + newline + 1
        at += len(chunk)
    return max(at, pos)


def range_blocks(fh: BinaryIO, start: int, stop: int) -> Iterator[bytes]:
    """The bytes [start, stop) of a file, CHUNK at a time."""
    fh.seek(start)
    left = stop - start
    while left > 0 and (block := fh.read(min(CHUNK, left))):
        left -= len(block)
        yield block


def scan_range(fh: BinaryIO, start: int, end: int, find: Finder,
               sampling: Sampling | None = None) -> Generator[Hit, None, int]:
    """scan_blocks over the lines that start in [start, end), numbered from 1; returns their newlines."""
    first, stop = line_start(fh, start), line_start(fh, end)
    return (yield from scan_blocks(range_blocks(fh, first, stop), find, sampling, offset=first))
