"""Every incident (fixtures/incidents/<name>/, answer in <name>.expected.yaml beside it) and every hand-written format
example (fixtures/format-examples/, same layout; not cases: never fitted or scored) is diagnosed: the expected cause on
top, or, for a healthy run, nothing at or above 0.5."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from doctor.diagnose import diagnose_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INCIDENTS = FIXTURES / "incidents"
CASES = sorted(p.with_name(p.name.removesuffix(".expected.yaml"))
               for root in (INCIDENTS, FIXTURES / "format-examples") for p in root.glob("*.expected.yaml"))
HEALTHY_BELOW = 0.5
NEAR_TIE = 0.05     # the expected cause second, this close to the first: the input does not separate the two, and the
# report shows both with the check that tells them apart (a bare store timeout: port_blocked or master_addr_wrong)


def on_top(got: list[tuple[str, float]], accept: set[str]) -> bool:
    """The expected cause first, or second within NEAR_TIE of the first."""
    if got and got[0][0] in accept:
        return True
    return len(got) > 1 and got[1][0] in accept and got[0][1] - got[1][1] <= NEAR_TIE


def shown(case: Path, got: list[tuple[str, float]], accept: set[str]) -> bool:
    """A recording: the expected cause on top (or in a near tie). A hand-written example only shows that its lines are
    read, so its cause is among the first three: its label was chosen by whoever wrote it, and where the text does not
    separate two causes (a bare store timeout: port_blocked or master_addr_wrong) the fit on real cases ranks them."""
    if case.parent.name == "format-examples":
        return any(cause in accept for cause, _ in got[:3])
    return on_top(got, accept)


def answer(case: Path) -> dict:
    return yaml.safe_load(case.with_name(case.name + ".expected.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_incident_top_cause(case: Path) -> None:
    expected = answer(case)
    report = diagnose_files([str(case)])
    got = [(d.cause, d.confidence) for d in report.diagnoses]
    if expected["cause"] == "healthy":
        assert all(conf < HEALTHY_BELOW for _, conf in got), got
        return
    accept = {expected["cause"], *(expected.get("also_acceptable") or [])}
    assert shown(case, got, accept), f"{case.name}: want {accept}, got {got}"
    assert report.diagnoses[0].evidence, "the top diagnosis must quote its evidence"


def test_readme_main_job_prints_cause_evidence_and_fix(doctor_cli) -> None:
    """`doctor analyze fixtures/incidents/<any>` prints the right cause, its evidence line and the fix."""
    case = next(c for c in CASES if c.parent == INCIDENTS and answer(c)["cause"] != "healthy")
    expected = answer(case)
    proc = doctor_cli("analyze", str(case))
    assert proc.returncode == 1, proc.stderr
    assert expected["cause"] in proc.stdout
    assert "Evidence" in proc.stdout and "Fix:" in proc.stdout
    data = json.loads(doctor_cli("analyze", "--json", str(case)).stdout)
    top = data["diagnoses"][0]
    assert top["evidence"][0]["line"] > 0 and top["evidence"][0]["text"]
    flat = " ".join(proc.stdout.split())
    assert " ".join(top["evidence"][0]["text"].split())[:60] in flat, "the evidence line is quoted in the text report"
