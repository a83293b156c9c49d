"""Every probe's regular expressions against adversarial lines (issue 15, hostile input 2: regexes).

Line probes see lines cut to MAX_LINE (4 KiB). A pattern with ambiguous runs (`.*?x?.*?`, `\\d+` searched from
every digit, three optional space runs around a colon) is quadratic or cubic on a line built of its own pieces
repeated: 'timed out connecting ' x 190 took 3.9 s, ':' + 2,000 spaces was cubic. Each search of a 4 KiB line
built from a pattern's own literals must take well under a second.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import time

import probes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doctor.probing.lines import MAX_LINE
from doctor.probing.regex import LazyPattern

LIMIT_S = 0.5


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    found = []
    modules = [f"probes.{info.name}" for info in pkgutil.iter_modules(probes.__path__)] + ["doctor.probing.lines"]
    for module_name in modules:
        module, short = importlib.import_module(module_name), module_name.rsplit(".", 1)[-1]
        for name, value in vars(module).items():
            if isinstance(value, LazyPattern):
                value.search("")                                     # compile it
                found.append((f"{short}.{name}", value._compiled))
            elif isinstance(value, re.Pattern):
                found.append((f"{short}.{name}", value))
            elif isinstance(value, (tuple, dict)):
                inner = value.values() if isinstance(value, dict) else value
                for i, item in enumerate(x for v in inner for x in (v if isinstance(v, tuple) else (v,))):
                    if isinstance(item, LazyPattern):
                        item.search("")
                        found.append((f"{short}.{name}[{i}]", item._compiled))
    return found


PATTERNS = _patterns()
PIECES = (" ", ":", "0", "9", ".", "=", "[", "]", "(", ")", ",", "\t", "a", "-", "/", "@", "<", ">")


def _literals(pattern: re.Pattern[str]) -> list[str]:
    words = re.findall(r"[A-Za-z_][A-Za-z_ ]{2,}", pattern.pattern.replace("\\s", " "))
    return [w for w in words if w.strip()] or ["x"]


def _line(parts: list[str]) -> str:
    unit = "".join(parts) or " "
    return (unit * (MAX_LINE // len(unit) + 1))[:MAX_LINE]


def _timed(name: str, pattern: re.Pattern[str], line: str) -> None:
    start = time.perf_counter()
    pattern.search(line)
    spent = time.perf_counter() - start
    assert spent < LIMIT_S, f"{name} took {spent:.2f} s on {line[:60]!r}..."


def test_patterns_found() -> None:
    assert len(PATTERNS) > 150


def test_known_adversarial_lines() -> None:
    lines = [":" + " " * 2000, " " * MAX_LINE, "9" * 4000 + " free", "timed out connecting " * 190,
             "1." * 2000, "[" * MAX_LINE, "a:" * 2000, "remote=[" * 500]
    for name, pattern in PATTERNS:
        for line in lines:
            _timed(name, pattern, line[:MAX_LINE])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_pattern_on_lines_of_its_own_pieces(data: st.DataObject) -> None:
    name, pattern = data.draw(st.sampled_from(PATTERNS))
    parts = data.draw(st.lists(st.sampled_from(_literals(pattern) + list(PIECES)), min_size=1, max_size=4))
    _timed(name, pattern, _line(parts))
