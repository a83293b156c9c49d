"""A set of microseconds kept as one bit per microsecond in sparse chunks: unions of intervals in O(1) memory per
event, and overlap arithmetic (A and B, A minus B) by integer bit operations.

Trace events arrive in no useful order and nest (a CPU op inside another, kernels on several streams), so
"how long was anything of this class running" is the measure of a union of intervals. Sorting millions of
intervals would hold them all; a bitset holds only the time span (1 MiB covers 8.4 s) and costs a memset per
event. Intervals are snapped to whole microseconds the way HolisticTraceAnalysis does (start rounded up, end
rounded down), so both tools measure the same thing.
"""
from __future__ import annotations

import math

_SHIFT = 18
CHUNK_BITS = 1 << _SHIFT               # 262 144 µs per chunk: 32 KiB
_CHUNK_BYTES = CHUNK_BITS // 8
_ONES = memoryview(b"\xff" * _CHUNK_BYTES)
MAX_CHUNKS = 4096      # 128 MiB a set: 18 min of busy 0.26 s windows (bench --gb 1 needs 590); not what a trace claims


class SpanTooLarge(ValueError):
    """An input asked for more microsecond chunks than MAX_CHUNKS (one event of "dur": 2e10 asked for 7.4 GB)."""

    def __init__(self) -> None:
        super().__init__(f"its events spread over more than {MAX_CHUNKS} windows of {CHUNK_BITS / 1e6:.2f} s "
                         f"({MAX_CHUNKS * CHUNK_BITS / 60e6:.0f} min); a profiler trace covers a few steps")


def snap(ts: float, dur: float) -> tuple[int, int]:
    """[start, end) in whole microseconds: start rounded up, end rounded down (empty when end <= start)."""
    return math.ceil(ts), math.floor(ts + dur)


class TimeBits:
    """A set of whole microseconds. add() unions an interval; count*() measure within an optional window."""

    __slots__ = ("chunks",)

    def __init__(self) -> None:
        self.chunks: dict[int, bytearray] = {}

    def add(self, start: int, end: int) -> None:
        """Add [start, end) (whole microseconds)."""
        key = start >> _SHIFT
        if start < end and (end - 1) >> _SHIFT == key:          # the common case: inside one chunk
            chunk = self.chunks.get(key)
            if chunk is None:
                if len(self.chunks) >= MAX_CHUNKS:
                    raise SpanTooLarge()
                chunk = self.chunks[key] = bytearray(_CHUNK_BYTES)
            _set_bits(chunk, start - (key << _SHIFT), end - (key << _SHIFT))
            return
        last = (end - 1) >> _SHIFT
        if start < end and len(self.chunks) + last - key >= MAX_CHUNKS:        # may need more chunks than allowed
            if last - key >= MAX_CHUNKS or \
                    len(self.chunks) + sum(k not in self.chunks for k in range(key, last + 1)) > MAX_CHUNKS:
                raise SpanTooLarge()
        while start < end:
            key, low = divmod(start, CHUNK_BITS)
            high = min(end - key * CHUNK_BITS, CHUNK_BITS)
            chunk = self.chunks.get(key)
            if chunk is None:
                chunk = self.chunks[key] = bytearray(_CHUNK_BYTES)
            _set_bits(chunk, low, high)
            start = key * CHUNK_BITS + high

    def __bool__(self) -> bool:
        return bool(self.chunks)

    def bounds(self) -> tuple[int, int] | None:
        """(first, last + 1) microsecond in the set, or None when empty."""
        if not self.chunks:
            return None
        lo_key, hi_key = min(self.chunks), max(self.chunks)
        lo_int = int.from_bytes(self.chunks[lo_key], "little")
        hi_int = int.from_bytes(self.chunks[hi_key], "little")
        if not lo_int or not hi_int:
            return None
        first = lo_key * CHUNK_BITS + ((lo_int & -lo_int).bit_length() - 1)
        last = hi_key * CHUNK_BITS + hi_int.bit_length()
        return first, last

    def count(self, lo: int | None = None, hi: int | None = None) -> int:
        """Microseconds in the set within [lo, hi)."""
        return self._measure(lambda a: a, (), lo, hi)

    def count_and(self, other: "TimeBits", lo: int | None = None, hi: int | None = None) -> int:
        """Microseconds in both sets."""
        return self._measure(lambda a, b: a & b, (other,), lo, hi)

    def count_minus(self, *others: "TimeBits", lo: int | None = None, hi: int | None = None) -> int:
        """Microseconds in this set and in none of the others."""
        def minus(a: int, *bs: int) -> int:
            for b in bs:
                a &= ~b
            return a
        return self._measure(minus, others, lo, hi)

    def _measure(self, combine, others: tuple["TimeBits", ...], lo: int | None, hi: int | None) -> int:
        total = 0
        if lo is not None and hi is not None and (hi - lo) // CHUNK_BITS < len(self.chunks):
            keys = [k for k in range(lo // CHUNK_BITS, (hi - 1) // CHUNK_BITS + 1) if k in self.chunks]
        else:
            keys = list(self.chunks)
        for key in keys:
            chunk = self.chunks[key]
            base = key * CHUNK_BITS
            if (hi is not None and base >= hi) or (lo is not None and base + CHUNK_BITS <= lo):
                continue
            value = combine(int.from_bytes(chunk, "little"),
                            *(int.from_bytes(o.chunks.get(key, b""), "little") for o in others))
            if lo is not None and lo > base:
                value &= ~((1 << (lo - base)) - 1)
            if hi is not None and hi < base + CHUNK_BITS:
                value &= (1 << (hi - base)) - 1
            total += value.bit_count()
        return total

    def union(self, *others: "TimeBits") -> "TimeBits":
        """A new set holding every microsecond of this set and the others."""
        out = TimeBits()
        for source in (self, *others):
            for key, chunk in source.chunks.items():
                mine = out.chunks.get(key)
                if mine is None:
                    out.chunks[key] = bytearray(chunk)
                else:
                    merged = int.from_bytes(mine, "little") | int.from_bytes(chunk, "little")
                    out.chunks[key] = bytearray(merged.to_bytes(_CHUNK_BYTES, "little"))
        return out

    def minus(self, *others: "TimeBits") -> "TimeBits":
        """A new set holding the microseconds of this set that are in none of the others."""
        out = TimeBits()
        for key, chunk in self.chunks.items():
            value = int.from_bytes(chunk, "little")
            for other in others:
                theirs = other.chunks.get(key)
                if theirs is not None:
                    value &= ~int.from_bytes(theirs, "little")
            if value:
                out.chunks[key] = bytearray(value.to_bytes(_CHUNK_BYTES, "little"))
        return out


def _set_bits(chunk: bytearray, low: int, high: int) -> None:
    """Set bits [low, high) of a chunk (bit i lives in byte i // 8, bit i % 8)."""
    first_byte, last_byte = low >> 3, (high - 1) >> 3
    if first_byte == last_byte:
        chunk[first_byte] |= ((1 << (high - low)) - 1) << (low & 7)
        return
    chunk[first_byte] |= (0xFF << (low & 7)) & 0xFF
    full = last_byte - first_byte - 1
    if full > 0:
        chunk[first_byte + 1:last_byte] = _ONES[:full]
    chunk[last_byte] |= (1 << (((high - 1) & 7) + 1)) - 1
