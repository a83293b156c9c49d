"""The default matcher: per-kind index, backtracking joins, one pass per rule. Pure and deterministic."""
from __future__ import annotations

from collections import defaultdict

from doctor.engine import Finding
from doctor.engine.conditions import matches
from doctor.facts import Fact
from doctor.rulebase.model import Pattern, Rule

MAX_FINDINGS_PER_RULE = 25


def index(facts: list[Fact]) -> dict[str, list[Fact]]:
    by_kind: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        by_kind[fact.KIND].append(fact)
    return by_kind


def run(rules: list[Rule], facts: list[Fact]) -> list[Finding]:
    by_kind = index(facts)
    findings: list[Finding] = []
    for rule in rules:
        findings.extend(match_rule(rule, by_kind))
    return findings


def match_rule(rule: Rule, by_kind: dict[str, list[Fact]]) -> list[Finding]:
    out: list[Finding] = []
    for bound in _bindings(rule.when, by_kind, {}):
        if any(_exists(p, by_kind, bound) for p in rule.unless):
            continue
        out.append(Finding(rule, tuple(bound.items())))
        if len(out) >= MAX_FINDINGS_PER_RULE:
            break
    return out


def _bindings(patterns: tuple[Pattern, ...], by_kind: dict[str, list[Fact]], bound: dict[str, Fact]):
    if not patterns:
        yield dict(bound)
        return
    first, rest = patterns[0], patterns[1:]
    for fact in by_kind.get(first.kind, ()):
        if matches(first, fact, bound):
            bound[first.alias] = fact
            yield from _bindings(rest, by_kind, bound)
            del bound[first.alias]


def _exists(pattern: Pattern, by_kind: dict[str, list[Fact]], bound: dict[str, Fact]) -> bool:
    return any(matches(pattern, fact, bound) for fact in by_kind.get(pattern.kind, ()))
