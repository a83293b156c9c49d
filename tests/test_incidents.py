"""Every recorded incident (fixtures/incidents/<name>/ with expected.yaml) is diagnosed: the expected cause on top,
or, for a healthy run, nothing at or above 0.5."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from doctor.diagnose import diagnose_files

INCIDENTS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"
CASES = sorted(p.parent for p in INCIDENTS.glob("*/expected.yaml"))
HEALTHY_BELOW = 0.5


def _inputs(case: Path) -> list[str]:
    return [str(p) for p in sorted(case.iterdir()) if p.name != "expected.yaml"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_incident_top_cause(case: Path) -> None:
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    report = diagnose_files(_inputs(case), expected.get("symptom") if expected.get("use_symptom") else None)
    got = [(d.cause, d.confidence) for d in report.diagnoses]
    if expected["cause"] == "healthy":
        assert all(conf < HEALTHY_BELOW for _, conf in got), got
        return
    accept = {expected["cause"], *(expected.get("also_acceptable") or [])}
    assert got and got[0][0] in accept, f"{case.name}: want {accept}, got {got}"
    assert report.diagnoses[0].evidence, "the top diagnosis must quote its evidence"


def test_readme_main_job_prints_cause_evidence_and_fix(doctor_cli) -> None:
    """`doctor analyze fixtures/incidents/<any>` prints the right cause, its evidence line and the fix."""
    case = next(c for c in CASES if yaml.safe_load((c / "expected.yaml").read_text())["cause"] != "healthy")
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    proc = doctor_cli("analyze", str(case))
    assert proc.returncode == 1, proc.stderr
    assert expected["cause"] in proc.stdout
    assert "Evidence" in proc.stdout and "Fix:" in proc.stdout
    data = json.loads(doctor_cli("analyze", "--json", str(case)).stdout)
    top = data["diagnoses"][0]
    assert top["evidence"][0]["line"] > 0 and top["evidence"][0]["text"]
    assert any(ev["text"] in proc.stdout for ev in top["evidence"][:1])
