"""lazy_compile: re.compile's behaviour, compiled once, on first use; every probe pattern still compiles."""
from __future__ import annotations

import importlib
import pkgutil
import re

import probes
from doctor.probing import regex
from doctor.probing.regex import LazyPattern, lazy_compile


def test_it_behaves_as_the_compiled_pattern() -> None:
    source = r"rank (?P<rank>\d+)"
    lazy, real = lazy_compile(source, re.IGNORECASE), re.compile(source, re.IGNORECASE)
    text = "RANK 3 and rank 12"
    assert lazy.search(text)["rank"] == real.search(text)["rank"] == "3"
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub("r", text) == real.sub("r", text) and lazy.findall(text) == real.findall(text)
    assert lazy.match("x") is None and lazy.fullmatch("rank 7")
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (real.pattern, real.flags, real.groups, real.groupindex)


def test_compiled_once_and_only_when_used(monkeypatch) -> None:
    calls: list[str] = []
    compile_ = re.compile
    monkeypatch.setattr(regex.re, "compile", lambda source, flags=0: calls.append(source) or compile_(source, flags))
    lazy = lazy_compile(r"NCCL (INFO|WARN)")
    assert calls == []
    for _ in range(3):
        assert lazy.search("x NCCL WARN y")
    assert calls == [r"NCCL (INFO|WARN)"]


def test_every_probe_pattern_compiles() -> None:
    """What importing the probes used to prove: a broken pattern now fails here, not on the first matching line."""
    found = []
    for info in pkgutil.iter_modules(probes.__path__):
        module = importlib.import_module(f"probes.{info.name}")
        found.extend(_patterns(vars(module).values()))
    assert len(found) > 150
    for pattern in found:
        assert pattern.groups >= 0          # any attribute compiles it; an invalid pattern raises re.error


def _patterns(values) -> list[LazyPattern]:
    out: list[LazyPattern] = []
    for value in values:
        if isinstance(value, LazyPattern):
            out.append(value)
        elif isinstance(value, (tuple, list)):
            out.extend(_patterns(value))
        elif isinstance(value, dict):
            out.extend(_patterns([*value.keys(), *value.values()]))
    return out
