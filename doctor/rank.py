"""Findings -> ranked diagnoses: a fitted, calibrated differential diagnosis (doctor/judgement/, rules/README.md).

Each cause with support gets a probability from the softmax of doctor/judgement/model.py; what the causes shown
do not take is the "unexplained" share. Order: probability, then number of evidence lines, then cause id:
deterministic for the same input.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from doctor.engine import Finding
from doctor.facts import Fact, Origin
from doctor.judgement import context
from doctor.judgement.evidence import counted, settings_only
from doctor.judgement.model import CaseView, Model, guesses_if_failed, load, shown, with_priors
from doctor.templates import render, unknowns

MAX_EVIDENCE = 8


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
    if_failed: bool = False      # a guess for an input that shows no failure: the usual cause if the job did fail


@lru_cache(maxsize=4)
def _shipped(causes_key: tuple[tuple[str, tuple[str, ...]], ...]) -> Model:
    return load({c: {"symptoms": list(s)} for c, s in causes_key})


def shipped_model(causes: dict[str, dict]) -> Model:
    """The model of rules/weights.yaml for this cause table (read once)."""
    return _shipped(tuple(sorted((c, tuple(v.get("symptoms") or ())) for c, v in causes.items())))


def view(findings: list[Finding], facts: list[Fact], symptom: str | None,
         narrowing: tuple[str, Fact] | None = None) -> CaseView:
    """What the model sees: the rules that count per cause, the symptom (given, else read), the context, the
    narrowing sign (context.narrowing_fact, read here unless the caller has it)."""
    narrowing = narrowing or context.narrowing_fact(facts)
    return CaseView(counted(findings), symptom or context.read_symptom(facts, fallback=True), context.features(facts),
                    symptom_given=bool(symptom), failing=bool(symptom) or context.shows_failure(facts),
                    sign=narrowing[0] if narrowing else None, settings_only=settings_only(findings))


def rank(findings: list[Finding], causes: dict[str, dict], symptom: str | None = None,
         facts: list[Fact] | None = None, model: Model | None = None) -> list[Diagnosis]:
    model = with_priors(model or shipped_model(causes), [f.rule for f in findings])
    narrowing = context.narrowing_fact(facts or [])
    seen = view(findings, facts or [], symptom, narrowing)
    probabilities = shown(model.probabilities(seen), seen)
    by_cause: dict[str, list[Finding]] = {}
    for f in findings:
        by_cause.setdefault(f.rule.cause, []).append(f)
    sign = narrowing[1] if narrowing else context.symptom_fact(facts or [])
    out = [_diagnose(cause, by_cause[cause], p) if cause in seen.evidence else _guess(cause, causes, p, seen, sign)
           for cause, p in probabilities.items()]
    out.sort(key=lambda d: (-d.confidence, not d.rules, -len(d.evidence), d.cause))   # on a tie, a cause read first
    return out


def _diagnose(cause: str, findings: list[Finding], probability: float) -> Diagnosis:
    support = [f for f in findings if f.rule.effect != "lower"]
    by_rule: dict[str, list[Finding]] = {}
    for f in support:
        by_rule.setdefault(f.rule.id, []).append(f)
    ordered = sorted((_naming_most(fs) for fs in by_rule.values()), key=lambda f: (-f.rule.confidence, f.rule.id))
    top = ordered[0]
    bound = top.bound()
    return Diagnosis(
        cause=cause, title=render(top.rule.title, bound), confidence=round(probability, 3),
        rules=[f.rule.id for f in ordered], evidence=_evidence(support),
        fix_summary=render(top.rule.fix_summary, bound), fix_steps=[render(s, bound) for s in top.rule.fix_steps],
        next_checks=_next(ordered), lowered_by=sorted({f.rule.id for f in findings if f.rule.effect == "lower"}))


def _naming_most(findings: list[Finding]) -> Finding:
    """Of one rule's findings, the first whose title the input fills, else the one leaving fewest fields out."""
    best, fewest = findings[0], -1
    for f in findings:
        missing = unknowns(f.rule.title, f.bound())
        if missing == 0:
            return f
        if fewest < 0 or missing < fewest:
            best, fewest = f, missing
    return best


def _guess(cause: str, causes: dict[str, dict], probability: float, seen: CaseView, sign: Fact | None) -> Diagnosis:
    """A cause no rule supports, that the symptom alone makes possible: the taxonomy's title, fix and signs."""
    entry = causes.get(cause, {})
    signs = entry.get("signs", "")
    checks = [f"look for its signs: {signs}"] if signs else []
    note = (context.NARROWING_NOTES.get(seen.sign or "") or context.sign_note(sign, seen.symptom)) if sign else ""
    evidence = ([Evidence(sign.origin.source, sign.origin.line, sign.origin.text, f"{note}; no rule points at this cause")]
                if sign and sign.origin.source and (seen.sign or seen.symptom) else [])
    if_failed = guesses_if_failed(seen)
    shown_as = (seen.sign or seen.symptom or "").replace("_", " ")
    title = "if the job did fail" if if_failed else f"possible for {shown_as}" if shown_as else "also possible"
    return Diagnosis(cause=cause, title=f"{title}: {entry.get('title', cause)}",
                     confidence=round(probability, 3), rules=[], evidence=evidence,
                     fix_summary=entry.get("fix", ""), fix_steps=[], next_checks=checks, if_failed=if_failed)


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
