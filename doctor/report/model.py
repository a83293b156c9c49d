"""Report model and its JSON form (DESIGN section 6)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from doctor.facts import Fact
from doctor.facts.status import ProbeStatus
from doctor.probing.offline import InputRecord
from doctor.rank import Diagnosis

SCHEMA = "doctor.report/1"


@dataclass
class Report:
    diagnoses: list[Diagnosis]
    facts: list[Fact] = field(default_factory=list)
    inputs: list[InputRecord] = field(default_factory=list)
    symptom: str | None = None

    def probe_statuses(self) -> list[ProbeStatus]:
        return [f for f in self.facts if isinstance(f, ProbeStatus)]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "symptom": self.symptom,
            "diagnoses": [_diagnosis(d) for d in self.diagnoses],
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
    }
