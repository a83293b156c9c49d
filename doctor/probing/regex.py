"""Regular expressions compiled the first time they are used.

One command reads a few kinds of artifact, yet importing the probes compiled all of their ~200
patterns: 29 ms of every command. `lazy_compile(source)` stands for `re.compile(source)`: the same
methods, compiled on the first call of any of them (and then called directly, without a detour).
"""
from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class LazyPattern:
    __slots__ = ("_source", "_flags", "_compiled", *_METHODS)

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags

    def __getattr__(self, name: str) -> Any:
        """Reached only while a method slot is empty (before the first use) or for other attributes."""
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            compiled = self._compiled
        except AttributeError:
            compiled = self._compiled = re.compile(self._source, self._flags)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self._source!r})"


def lazy_compile(source: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", LazyPattern(source, flags))
