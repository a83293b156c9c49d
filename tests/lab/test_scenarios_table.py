"""The scenario table is well formed and every recorded fixture matches it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lab.record import answer_file, find_evidence, recorded_outputs
from lab.scenarios import CAUSES, SCENARIOS, SYMPTOMS, by_name

REPO = Path(__file__).resolve().parents[2]
INCIDENTS = REPO / "fixtures" / "incidents"
TAXONOMY = REPO.parent / "shared" / "taxonomy.yaml"
KEYS = {"cause", "symptom", "also_acceptable", "description", "produced_by", "torch"}
RECORDED = sorted(p.with_name(p.name.removesuffix(".expected.yaml")) for p in INCIDENTS.glob("*.expected.yaml")
                  if "lab.run" in p.read_text()) if INCIDENTS.is_dir() else []
# incidents written by hand in the real format are checked by tests/test_incidents.py


def test_names_unique_and_kebab() -> None:
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
    assert all(n == n.lower() and " " not in n and "_" not in n for n in names)


def test_causes_and_symptoms_in_vocabulary() -> None:
    for s in SCENARIOS:
        assert s.cause in CAUSES, s.name
        assert set(s.also_acceptable) <= CAUSES - {"healthy"}, s.name
        assert s.cause not in s.also_acceptable, s.name
        assert s.symptom in SYMPTOMS, s.name
        assert (s.cause == "healthy") == (s.symptom == "none"), s.name


def test_causes_in_shared_taxonomy() -> None:
    if not TAXONOMY.is_file():
        pytest.skip(f"no shared taxonomy at {TAXONOMY}")
    ids = set(yaml.safe_load(TAXONOMY.read_text())["causes"])
    for s in SCENARIOS:
        assert {s.cause, *s.also_acceptable} - {"healthy"} <= ids, s.name


def test_scenarios_are_runnable_as_declared() -> None:
    for s in SCENARIOS:
        assert s.procs and s.expect and s.description, s.name
        logs = [p.log for p in s.procs]
        assert len(logs) == len(set(logs)), s.name
        assert s.deadline <= 60, s.name
        for p in s.procs:
            assert (p.node is None) or (0 <= p.node < s.nodes), s.name
        if s.drop_port:
            assert all(0 <= n < s.nodes for n in s.drop_port), s.name
    assert sum(1 for s in SCENARIOS if s.nodes) >= 2


def test_every_scenario_was_recorded() -> None:
    assert {p.name for p in RECORDED} == set(by_name())


@pytest.mark.parametrize("incident", RECORDED, ids=lambda p: p.name)
def test_recorded_incident(incident: Path) -> None:
    expected = yaml.safe_load(answer_file(incident).read_text())
    assert KEYS <= set(expected)
    sc = by_name()[incident.name]
    assert expected["cause"] == sc.cause and expected["symptom"] == sc.symptom
    assert expected["also_acceptable"] == list(sc.also_acceptable)
    assert expected["produced_by"] == f"python -m lab.run --only {sc.name}"
    logs = {p.name: p.read_text(errors="replace") for p in incident.glob("*.log")}
    assert logs and set(logs) == {p.log for p in sc.procs}
    evidence, missing = find_evidence(sc.expect, recorded_outputs(incident))
    assert not missing, f"recorded logs lack {missing}"
    assert len(expected["evidence"]) == len(sc.expect)
    assert all(len(body) < 64_000 for body in logs.values()), "keep runs short"
    assert (incident / "command.txt").is_file() and (incident / "env.txt").is_file()


def test_list_prints_every_scenario() -> None:
    out = subprocess.run([sys.executable, "-m", "lab.run", "--list"], cwd=REPO, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert all(s.name in out for s in SCENARIOS)


def test_unknown_scenario_is_usage_error() -> None:
    res = subprocess.run([sys.executable, "-m", "lab.run", "--only", "no-such"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "unknown scenario" in res.stderr
