"""The core: artifacts -> facts -> findings -> ranked report. No printing here."""
from __future__ import annotations

import threading
from functools import lru_cache

from doctor.aggregate import aggregate
from doctor.engine import Finding, run
from doctor.facts import Fact
from doctor.probing.offline import gather_files
from doctor.judgement.context import narrowing_sign, read_symptom
from doctor.judgement.unknowns import differential, unexplained_lines
from doctor.rank import Evidence, rank
from doctor.report.model import Report
from doctor.rulebase.load import load_causes, load_rules
from doctor.rulebase.model import Rule


def _preload_rules() -> None:
    """rule_base() ahead of need; an error is left for the caller's own call to raise, as one line."""
    try:
        rule_base()
    except Exception:  # noqa: BLE001 - raised again, where it is reported, when diagnose_facts() calls rule_base()
        pass


@lru_cache(maxsize=1)
def rule_base() -> tuple[tuple[Rule, ...], dict]:
    causes = load_causes()
    return tuple(load_rules(causes=causes)), causes


def diagnose_facts(facts: list[Fact], symptom: str | None = None, engine: str = "native",
                   rules: tuple[Rule, ...] | None = None) -> Report:
    all_rules, causes = rule_base()
    facts = aggregate(facts)
    findings = run(rules if rules is not None else all_rules, facts, engine)
    return report_of(findings, facts, causes, symptom)


SURE = 0.5        # unless a rule-backed cause reaches this, error lines left unexplained bring the symptom's differential


def report_of(findings: list[Finding], facts: list[Fact], causes: dict, symptom: str | None) -> Report:
    """The ranked diagnoses, and the error lines no rule explains with the symptom's differential."""
    left = unexplained_lines(facts, findings)
    lines = [Evidence(f.origin.source, f.origin.line, f.origin.text) for f in left]
    ranked = rank(findings, causes, symptom, facts)
    diagnoses = [d for d in ranked if not d.if_failed]
    sign = narrowing_sign(facts)          # an error that narrows the field without naming a cause: its differential
    unsure = (lines or sign) and not any(d.confidence >= SURE and d.rules for d in diagnoses)   # a guess is never sure
    shown = sign or symptom or read_symptom(facts, fallback=True)
    return Report(diagnoses=diagnoses, facts=facts, symptom=symptom, unexplained_lines=lines,
                  differential=differential(shown) if unsure else None,
                  if_failed=[d for d in ranked if d.if_failed])


def diagnose_files(paths: list[str], symptom: str | None = None, engine: str = "native",
                   extra: list[Fact] | None = None) -> Report:
    """extra: facts given on the command line rather than read from a file (e.g. --expect link_gbps=10).
    The rule base loads on a thread while the files are read: reading a big log mostly waits on the scan."""
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    loader = threading.Thread(target=_preload_rules, name="doctor-rules", daemon=True)
    loader.start()
    gathered = gather_files(paths, LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES)
    loader.join()
    report = diagnose_facts(gathered.facts + list(extra or []), symptom, engine)
    report.inputs = gathered.inputs
    return report
