"""Report model and its JSON form (DESIGN section 6)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from doctor.facts import Fact
from doctor.facts.status import ProbeStatus
from doctor.judgement.unknowns import Differential
from doctor.probing.offline import InputRecord
from doctor.rank import Diagnosis, Evidence

SCHEMA = "doctor.report/1"


@dataclass
class Report:
    diagnoses: list[Diagnosis]
    facts: list[Fact] = field(default_factory=list)
    inputs: list[InputRecord] = field(default_factory=list)
    symptom: str | None = None
    unexplained_lines: list[Evidence] = field(default_factory=list)   # error lines no rule explains
    differential: Differential | None = None                          # given when such lines are left
    if_failed: list[Diagnosis] = field(default_factory=list)          # an input that shows no failure: the usual
    # causes if the job did fail anyway, given what the input shows (fitted guesses, small; never an alarm)

    @property
    def unexplained(self) -> float:
        """The probability that none of the causes shown is the answer (on an input that shows no failure: mostly
        that nothing failed)."""
        return round(max(0.0, 1.0 - sum(d.confidence for d in self.diagnoses + self.if_failed)), 3)

    @property
    def healthy(self) -> bool:
        """Nothing to report: no diagnosis and no error line left unexplained."""
        return not self.diagnoses and not self.unexplained_lines

    def probe_statuses(self) -> list[ProbeStatus]:
        return [f for f in self.facts if isinstance(f, ProbeStatus)]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "symptom": self.symptom,
            "healthy": self.healthy,
            "diagnoses": [_diagnosis(d) for d in self.diagnoses + self.if_failed],
            "unexplained": self.unexplained,
            "unexplained_lines": [{"source": e.source, "line": e.line, "text": e.text} for e in self.unexplained_lines],
            "differential": _differential(self.differential),
            "probes": [{"name": p.probe, "status": p.status, "reason": p.reason, "node": p.node}
                       for p in self.probe_statuses()],
            "inputs": [{"path": i.path, "bytes": i.size, "kinds": i.kinds, "status": i.status, "reason": i.reason}
                       for i in self.inputs],
            "facts": len(self.facts),
        }


def _diagnosis(d: Diagnosis) -> dict[str, Any]:
    return {
        "cause": d.cause,
        "title": d.title,
        "confidence": d.confidence,
        "rules": d.rules,
        "evidence": [{"source": e.source, "line": e.line, "text": e.text, "note": e.note} for e in d.evidence],
        "fix": {"summary": d.fix_summary, "steps": d.fix_steps},
        "next": d.next_checks,
        "lowered_by": d.lowered_by,
        "if_failed": d.if_failed,
    }


def _differential(d: Differential | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {"symptom": d.symptom, "causes": [{"cause": c.cause, "check": c.check} for c in d.candidates],
            "upload": list(d.upload)}
