"""`doctor fleet` as a user runs it: hostile uploads skipped in one line, the report in every shape."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
JOB_KEYS = {"job", "ingested", "nodes", "diagnoses", "decision", "exclude", "reason"}
NODE_KEYS = {"node", "jobs", "failures", "suspect", "evidence"}


def doctor(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", *argv], cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO), **(env or {})), timeout=300)


def test_hostile_uploads_are_one_line_each_and_the_rest_ingest(small_fleet, tmp_path: Path) -> None:
    good = next(u for u in small_fleet.uploads if u not in small_fleet.hostile)
    out = doctor("fleet", "ingest", "--db", str(tmp_path / "f.db"), good, *small_fleet.hostile, str(tmp_path / "gone"))
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert len(lines) == len(small_fleet.hostile) + 2 and "Traceback" not in out.stderr
    assert all(line.startswith("doctor: skipped ") for line in lines[:-1])
    assert any("unsafe member name" in line for line in lines)
    assert lines[-1].startswith(f"doctor: 1 added, 0 already stored, {len(small_fleet.hostile) + 1} skipped")


def test_json_report_schema_suspect_and_decisions(fleet_db: Path, small_fleet) -> None:
    out = doctor("fleet", "report", "--db", str(fleet_db), "--json")
    assert out.returncode == 1, out.stderr                     # a suspect node was found
    report = json.loads(out.stdout)
    assert set(report) == {"schema", "jobs", "nodes"} and report["schema"] == "doctor.fleet/1"
    assert len(report["jobs"]) == 40 and all(set(job) == JOB_KEYS for job in report["jobs"])
    assert all(set(node) == NODE_KEYS for node in report["nodes"])
    assert {job["decision"] for job in report["jobs"]} <= {"restart", "restart_excluding", "stop", "unknown"}
    [bad] = small_fleet.bad
    suspects = [n for n in report["nodes"] if n["suspect"]]
    assert [n["node"] for n in suspects] == [bad]
    assert suspects[0]["evidence"]["p_adjusted"] < 0.05 and "Poisson" in suspects[0]["evidence"]["test"]
    assert suspects[0]["evidence"]["failed_jobs"][0]["cause"] == "straggler"
    excluded = [job for job in report["jobs"] if bad in job["exclude"]]
    assert len(excluded) >= 5 and all(job["decision"] == "restart_excluding" for job in excluded)
    stopped = [job for job in report["jobs"] if job["decision"] == "stop"]
    assert stopped and all("program" in job["reason"] for job in stopped)


def test_slurm_exclude_and_prometheus(fleet_db: Path, small_fleet) -> None:
    assert doctor("fleet", "report", "--db", str(fleet_db), "--slurm-exclude").stdout.strip() == small_fleet.bad[0]
    text = doctor("fleet", "report", "--db", str(fleet_db), "--prometheus").stdout
    parser = pytest.importorskip("prometheus_client.parser")
    families = {f.name: f for f in parser.text_string_to_metric_families(text)}
    suspect = {s.labels["node"]: s.value for s in families["doctor_fleet_node_suspect"].samples}
    assert suspect[small_fleet.bad[0]] == 1 and sum(suspect.values()) == 1
    decisions = sum(s.value for s in families["doctor_fleet_jobs_by_decision"].samples)
    assert decisions == 40


def test_since_and_bad_since(fleet_db: Path) -> None:
    recent = json.loads(doctor("fleet", "report", "--db", str(fleet_db), "--json", "--since", "1h").stdout)
    assert recent["jobs"] == []                                 # the synthetic jobs are dated November 2026
    bad = doctor("fleet", "report", "--db", str(fleet_db), "--since", "soon")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--since" in bad.stderr


def test_default_database_under_xdg_data_home(tmp_path: Path) -> None:
    job = str(REPO / "fixtures" / "incidents" / "straggler-slow-rank")
    out = doctor("fleet", "ingest", job, env={"XDG_DATA_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "doctor" / "fleet.db").is_file()
