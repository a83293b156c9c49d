"""Which line probes want a candidate line, without asking every probe about every trigger.

A big log can hand the probes a candidate line per training step (a memory column in GiB is a
trigger), and asking all ~13 probes `any(t in line for t in triggers)` costs ~170 substring
searches per line. The router files each trigger under its rarest character and only tests the
triggers whose character occurs in the line: the same answer as wants(), about 3x cheaper.
Lines that differ only in their numbers (step 1041 / step 1042) share one answer: the answer for
a line's shape (every digit made 0) is remembered, which is exact for triggers without digits;
the few triggers with digits are tested on the line itself. Probes that override wants() are asked.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from doctor.probing.contract import LineProbe

# Characters from common to rare in logs (roughly: space, lowercase English, digits, punctuation, capitals).
_COMMON_FIRST = " etaoinsrhldcumfpgwybvkxjqz0123456789:.-_/[]()=,|'\"ETAOINSRHLDCUMFPGWYBVKXJQZ"
_RANK = {char: rank for rank, char in enumerate(_COMMON_FIRST)}
_DIGITS = re.compile(r"[0-9]")
_SHAPE = str.maketrans("123456789", "000000000")
SHAPES = 4096          # remembered line shapes; the memory is cleared when full


@lru_cache(maxsize=4096)        # asked for every trigger of every probe per input file: 20 ms a file uncached
def rarest(trigger: str) -> str:
    return max(trigger, key=lambda char: _RANK.get(char, len(_RANK)))


def router(probes: list[LineProbe]) -> Callable[[str], list[LineProbe]]:
    """line -> the probes that want it, in the order given."""
    table: dict[str, dict[str, set[int]]] = {}
    numbered: dict[str, set[int]] = {}         # triggers holding a digit: not valid on a line's shape
    asked = [n for n, probe in enumerate(probes) if type(probe).wants is not LineProbe.wants]
    for number, probe in enumerate(probes):
        for trigger in probe.triggers if number not in asked else ():
            if _DIGITS.search(trigger):
                numbered.setdefault(trigger, set()).add(number)
            elif trigger:
                table.setdefault(rarest(trigger), {}).setdefault(trigger, set()).add(number)
    groups = {char: tuple((t, frozenset(owners)) for t, owners in by_trigger.items()) for char, by_trigger in table.items()}
    keys = frozenset(groups)
    shapes: dict[str, tuple[frozenset[int], list[LineProbe]]] = {}

    def by_shape(shape: str) -> tuple[frozenset[int], list[LineProbe]]:
        wanted: set[int] = set()
        for char in keys.intersection(shape):
            for trigger, owners in groups[char]:
                if trigger in shape:
                    wanted |= owners
        if len(shapes) >= SHAPES:
            shapes.clear()
        shapes[shape] = (frozenset(wanted), [probes[n] for n in sorted(wanted)])
        return shapes[shape]

    def route(line: str) -> list[LineProbe]:
        shape = line.translate(_SHAPE)
        wanted, wanting = shapes.get(shape) or by_shape(shape)
        extra = {n for n in asked if probes[n].wants(line)}
        extra.update(n for trigger, owners in numbered.items() if trigger in line for n in owners)
        if extra - wanted:
            return [probes[n] for n in sorted(wanted | extra)]
        return wanting

    return route
