"""Findings -> ranked diagnoses: one per cause, noisy-OR of the rules that support it, lowered by negative evidence.

Order: score, then number of evidence lines, then cause id: deterministic for the same input.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from doctor.engine import Finding
from doctor.facts import Origin
from doctor.templates import render

MAX_EVIDENCE = 8
OFF_SYMPTOM_FACTOR = 0.6   # a cause that does not explain the stated symptom keeps 60% of its score


@dataclass(frozen=True)
class Evidence:
    source: str
    line: int
    text: str
    note: str = ""           # the rule's own evidence sentence, rendered


@dataclass
class Diagnosis:
    cause: str
    title: str
    confidence: float
    rules: list[str]
    evidence: list[Evidence]
    fix_summary: str
    fix_steps: list[str]
    next_checks: list[str] = field(default_factory=list)
    lowered_by: list[str] = field(default_factory=list)


def rank(findings: list[Finding], causes: dict[str, dict], symptom: str | None = None) -> list[Diagnosis]:
    support: dict[str, list[Finding]] = defaultdict(list)
    lower: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        (lower if f.rule.effect == "lower" else support)[f.rule.cause].append(f)
    out = [_diagnose(cause, fs, lower.get(cause, []), causes, symptom) for cause, fs in support.items()]
    out.sort(key=lambda d: (-d.confidence, -len(d.evidence), d.cause))
    return out


def noisy_or(values: list[float]) -> float:
    remaining = 1.0
    for v in values:
        remaining *= 1.0 - v
    return 1.0 - remaining


def _diagnose(cause: str, findings: list[Finding], lowering: list[Finding], causes: dict[str, dict],
              symptom: str | None) -> Diagnosis:
    best_per_rule: dict[str, Finding] = {}
    for f in findings:
        best_per_rule.setdefault(f.rule.id, f)
    ordered = sorted(best_per_rule.values(), key=lambda f: (-f.rule.confidence, f.rule.id))
    score = noisy_or([f.rule.confidence for f in ordered])
    lowered_ids = sorted({f.rule.id for f in lowering})
    for rule_id in lowered_ids:
        score *= 1.0 - next(f.rule.confidence for f in lowering if f.rule.id == rule_id)
    if symptom and symptom not in causes.get(cause, {}).get("symptoms", [symptom]):
        score *= OFF_SYMPTOM_FACTOR
    top = ordered[0]
    bound = top.bound()
    return Diagnosis(
        cause=cause, title=render(top.rule.title, bound), confidence=round(min(score, 0.99), 3),
        rules=[f.rule.id for f in ordered], evidence=_evidence(findings),
        fix_summary=render(top.rule.fix_summary, bound), fix_steps=[render(s, bound) for s in top.rule.fix_steps],
        next_checks=_next(ordered), lowered_by=lowered_ids)


def _evidence(findings: list[Finding]) -> list[Evidence]:
    seen: set[tuple[str, int]] = set()
    out: list[Evidence] = []
    for f in sorted(findings, key=lambda f: (-f.rule.confidence, f.rule.id)):
        bound = f.bound()
        notes = [render(t, bound) for t in f.rule.evidence]
        for i, (_, fact) in enumerate(f.bindings):
            origin: Origin = fact.origin
            key = (origin.source, origin.line)
            if not origin.source or key in seen:
                continue
            seen.add(key)
            out.append(Evidence(origin.source, origin.line, origin.text, notes[i] if i < len(notes) else ""))
            if len(out) >= MAX_EVIDENCE:
                return out
    return out


def _next(findings: list[Finding]) -> list[str]:
    out: list[str] = []
    for f in findings:
        for text in f.rule.next_checks:
            rendered = render(text, f.bound())
            if rendered not in out:
                out.append(rendered)
    return out
