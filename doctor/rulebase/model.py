"""The rule model: one YAML file = one Rule, with its documentation and its own tests."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OPERATORS = ("eq", "ne", "lt", "le", "gt", "ge", "matches", "exists", "missing", "any_of")


@dataclass(frozen=True)
class Ref:
    """A join: the value of another pattern's field."""

    alias: str
    field: str


@dataclass(frozen=True)
class Condition:
    field: str
    op: str
    value: Any            # a literal, a tuple for any_of, True for exists/missing, or a Ref


@dataclass(frozen=True)
class Pattern:
    kind: str
    alias: str
    conditions: tuple[Condition, ...]


@dataclass(frozen=True)
class RuleTest:
    name: str
    expect: str                                   # fires | quiet
    input: str = ""                               # a fixture path, relative to the repository root
    facts: tuple[dict[str, Any], ...] = ()        # or facts written inline
    policy: str = ""                              # with input: a policy file, judged as `doctor check --policy` does


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    cause: str
    symptoms: tuple[str, ...]
    confidence: float
    when: tuple[Pattern, ...]
    unless: tuple[Pattern, ...]
    title: str
    evidence: tuple[str, ...]
    fix_summary: str
    fix_steps: tuple[str, ...]
    next_checks: tuple[str, ...]
    why: str
    exceptions: str = ""
    references: tuple[str, ...] = ()
    effect: str = "support"                       # support | lower (negative evidence)
    tests: tuple[RuleTest, ...] = ()
    path: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
