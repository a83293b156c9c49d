"""Findings -> evidence: which rules count toward each cause.

An evidence item is one source line (origin source + line) or, for a fact without a line (a measured or
derived figure), the fact itself. Per cause and per evidence item only the strongest rule counts: one line read
by two rules of the same cause (NET008 and NCCL006, IB010 and IB011) counts once. A rule counts once however many
times it fired (eight ranks printing the same error are one sign, not eight).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from doctor.engine import Finding
from doctor.facts import Fact


@dataclass(frozen=True)
class CauseEvidence:
    """For one cause: the rules that count for it and those that argue against it (effect: lower)."""

    support: tuple[str, ...]
    lower: tuple[str, ...]


def item_key(fact: Fact) -> tuple:
    """The evidence item a fact is: its line, or (no line) the fact itself."""
    origin = fact.origin
    if origin.source and origin.line:
        return ("line", origin.source, origin.line)
    return ("fact", fact.KIND, hash(fact), origin.source)


def finding_items(finding: Finding) -> frozenset[tuple]:
    return frozenset(item_key(fact) for _, fact in finding.bindings)


def counted(findings: list[Finding]) -> dict[str, CauseEvidence]:
    """cause -> the rules that count. "Strongest" is the written confidence, so which rules count does not move
    while weights are fitted (fitting and use see the same features)."""
    by_cause: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_cause[f.rule.cause].append(f)
    out: dict[str, CauseEvidence] = {}
    for cause, fs in by_cause.items():
        support = _claim([f for f in fs if f.rule.effect != "lower"])
        lower = sorted({f.rule.id for f in fs if f.rule.effect == "lower"})
        if support:
            out[cause] = CauseEvidence(tuple(support), tuple(lower))
    return out


# Facts that are settings, not signs: what the job was told to do, the devices NCCL was set to use (its "NET/IB :
# Using" list: an MLPerf run that finished lists 8 RoCE and 4 IB ports, held-out batch ML), or how the node was set up
# (a /dev/shm size, a ulimit: a login node's df -h with a 392M /dev/shm, held-out batch MV). A rule that binds only
# these reads context
SETTING_KINDS = frozenset({"env.var", "launch.option", "nccl.hca", "sys.shm", "sys.ulimit"})


def settings_only(findings: list[Finding]) -> frozenset[str]:
    """The causes whose every supporting finding binds settings alone (an NCCL_* override, a launch flag): on an input
    that shows no failure they are context, not a sign that anything failed."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for f in findings:
        if f.rule.effect != "lower":
            kinds[f.rule.cause].update(fact.KIND for _, fact in f.bindings)
    return frozenset(cause for cause, seen in kinds.items() if seen and seen <= SETTING_KINDS)


def _claim(findings: list[Finding]) -> list[str]:
    """Strongest rule first; a finding counts when it brings at least one item not yet claimed for this cause."""
    claimed: set[tuple] = set()
    rules: list[str] = []
    for f in sorted(findings, key=lambda f: (-f.rule.confidence, f.rule.id)):
        items = finding_items(f)
        if f.rule.id in rules:
            claimed |= items
            continue
        if items and items <= claimed:
            continue
        claimed |= items
        rules.append(f.rule.id)
    return sorted(rules)
