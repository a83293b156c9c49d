"""Slurm hostlist syntax: expand `gpu[01-03,07],login1` to names and compress names back to that form."""
from __future__ import annotations

import re
from collections import defaultdict

_BRACKETS = re.compile(r"^(?P<prefix>[^\[\],]*)\[(?P<ranges>[^\]]+)\](?P<suffix>[^\[\],]*)$")
_TRAILING_NUMBER = re.compile(r"^(?P<prefix>.*?)(?P<number>\d+)$")
MAX_EXPANDED = 100_000


def split_top(text: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def expand(text: str) -> list[str]:
    """`node[01-03,07]` -> node01 node02 node03 node07. Malformed pieces are kept as plain names."""
    names: list[str] = []
    for part in split_top(text):
        match = _BRACKETS.match(part)
        if not match:
            names.append(part)
            continue
        for piece in match["ranges"].split(","):
            low, _, high = piece.partition("-")
            if not low.isdigit() or (high and not high.isdigit()):
                names.append(part)
                break
            width = len(low)
            stop = int(high) if high else int(low)
            if stop - int(low) > MAX_EXPANDED - len(names):
                break
            names.extend(f"{match['prefix']}{n:0{width}d}{match['suffix']}" for n in range(int(low), stop + 1))
    return names


def compress(names: list[str]) -> str:
    """Names -> the shortest plain hostlist: runs of numbers with one prefix and width become ranges."""
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    plain: list[str] = []
    for name in sorted(set(names)):
        match = _TRAILING_NUMBER.match(name)
        if match:
            groups[(match["prefix"], len(match["number"]))].append(int(match["number"]))
        else:
            plain.append(name)
    out = list(plain)
    for (prefix, width), numbers in sorted(groups.items()):
        ranges = _ranges(sorted(set(numbers)), width)
        single = len(numbers) == 1
        out.append(f"{prefix}{ranges}" if single else f"{prefix}[{ranges}]")
    return ",".join(sorted(out))


def _ranges(numbers: list[int], width: int) -> str:
    spans: list[str] = []
    start = prev = numbers[0]
    for n in numbers[1:] + [None]:  # type: ignore[list-item]
        if n is not None and n == prev + 1:
            prev = n
            continue
        spans.append(f"{start:0{width}d}" if start == prev else f"{start:0{width}d}-{prev:0{width}d}")
        if n is not None:
            start = prev = n
    return ",".join(spans)
