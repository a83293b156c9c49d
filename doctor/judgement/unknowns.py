"""Honest unknowns: the error lines no rule explains, and the symptom's differential to tell the usual causes apart.

An input is healthy only when it holds no error line and no measurement outside its expectation; otherwise the
report lists what is left unexplained (file:line), the usual causes of the symptom with the one check that tells
them apart, and what to upload next (rules/differentials.yaml).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from doctor.engine import Finding
from doctor.facts import Fact
from doctor.rulebase.load import read_data

DIFFERENTIALS = Path(__file__).resolve().parents[2] / "rules" / "differentials.yaml"
MAX_LINES = 10
ECHO_MIN = 24                # an echo shorter than this ("Error", "failed") could repeat anything
_NUMBER = re.compile(r"\d+")
GENERAL = "unknown"          # the table's entry when no symptom is known


@dataclass(frozen=True)
class Candidate:
    cause: str
    check: str               # the one check that tells this cause from the others


@dataclass(frozen=True)
class Differential:
    symptom: str
    candidates: tuple[Candidate, ...]
    upload: tuple[str, ...]  # what to upload next


def _shape(text: str) -> str:
    """A line with its numbers blanked: a kernel's assertion printed once per thread is one line, not 32."""
    return _NUMBER.sub("#", text)


def _echoes(text: str, cited_texts: set[str]) -> bool:
    """The line repeats the message of a line a finding cites: PyTorch's "Last error:" block quoting NCCL's WARN, a
    launcher echoing the worker's exception. It explains nothing new."""
    body = text.strip()
    return len(body) >= ECHO_MIN and any(body in cited for cited in cited_texts)


def unexplained_lines(facts: list[Fact], findings: list[Finding]) -> list[Fact]:
    """Error lines (log.error_line) whose file:line no finding cites: the first MAX_LINES of distinct shape in input
    order, and always each file's last one (where a traceback ends), however many came before it."""
    cited_facts = [fact for f in findings if f.rule.effect != "lower" for _, fact in f.bindings if fact.origin.line]
    cited = {(fact.origin.source, fact.origin.line) for fact in cited_facts}
    cited_texts = {fact.origin.text for fact in cited_facts}
    lines = [f for f in facts if f.KIND == "log.error_line" and (f.origin.source, f.origin.line) not in cited
             and not _echoes(f.get("text"), cited_texts)]
    seen: set[str] = set()
    distinct = []
    for f in sorted(lines, key=lambda f: (f.origin.source, f.origin.line)):
        shape = _shape(f.get("text"))
        if shape not in seen:
            seen.add(shape)
            distinct.append(f)
    last = {f.origin.source: f for f in distinct}
    ends = [f for f in last.values() if f not in distinct[:MAX_LINES]]
    ends = ends[-MAX_LINES:]
    return distinct[:MAX_LINES - len(ends)] + ends if ends else distinct[:MAX_LINES]


@lru_cache(maxsize=1)
def _data() -> dict:  # type: ignore[type-arg]
    return read_data(DIFFERENTIALS) or {}


@lru_cache(maxsize=1)
def _table() -> dict[str, Differential]:
    data = _data()
    entries = {**(data.get("symptoms") or {}), **(data.get("signs") or {})}
    return {symptom: Differential(symptom, tuple(Candidate(c["cause"], c["check"]) for c in entry.get("causes") or ()),
                                  tuple(entry.get("upload") or ()))
            for symptom, entry in entries.items()}


@lru_cache(maxsize=1)
def sign_causes() -> dict[str, tuple[str, ...]]:
    """Each narrowing sign's causes (differentials.yaml, `signs`): the guesses where the sign holds."""
    signs = _data().get("signs") or {}
    return {sign: tuple(c["cause"] for c in entry.get("causes") or ()) for sign, entry in signs.items()}


def differential(symptom: str | None) -> Differential:
    """The symptom's (or a narrowing sign's) usual causes and checks; the general entry when the symptom is unknown."""
    table = _table()
    return table.get(symptom or GENERAL) or table[GENERAL]


def check_for(cause: str) -> str | None:
    """The one check that tells this cause from the others, from the first differential that lists it."""
    for entry in _table().values():
        for c in entry.candidates:
            if c.cause == cause:
                return c.check
    return None
