"""The closed operator set, evaluated on one fact with the aliases bound so far."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from doctor.facts import Fact
from doctor.rulebase.model import Condition, Pattern, Ref


@lru_cache(maxsize=512)
def _regex(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _value(value: Any, bound: dict[str, Fact]) -> Any:
    return getattr(bound[value.alias], value.field) if isinstance(value, Ref) else value


def holds(cond: Condition, fact: Fact, bound: dict[str, Fact]) -> bool:
    actual = getattr(fact, cond.field)
    op = cond.op
    if op == "exists":
        return _present(actual) == bool(cond.value)
    if op == "missing":
        return (not _present(actual)) == bool(cond.value)
    expected = _value(cond.value, bound)
    if op == "eq":
        return actual == expected
    if op == "ne":
        return actual != expected
    if op == "any_of":
        return actual in expected
    if op == "matches":
        return isinstance(actual, str) and _regex(expected).search(actual) is not None
    try:
        return {"lt": actual < expected, "le": actual <= expected, "gt": actual > expected,
                "ge": actual >= expected}[op]
    except TypeError:
        return False


def _present(value: Any) -> bool:
    return value not in ("", -1, None, 0.0) if not isinstance(value, bool) else True


def matches(pattern: Pattern, fact: Fact, bound: dict[str, Fact]) -> bool:
    return all(holds(c, fact, bound) for c in pattern.conditions)
