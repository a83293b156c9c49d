"""`doctor check` end to end on this machine: a policy it cannot meet (exit 1, JUnit a parser reads, Prometheus
metrics), one it meets (exit 0), one it cannot check (exit 3), a malformed one (exit 2, FILE:LINE), Slurm mode."""
from __future__ import annotations

import json
import os
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

UNMEETABLE = """\
gpus: 8
shm: {min: 64T}
versions:
  pinned: {torch: 1.13.1}
nccl: {forbidden: [NCCL_ALGO]}
nvlink: all_pairs
"""
MEETABLE = """\
shm: {min: 1M}
versions:
  pinned: {torch: %s}
  equal: [torch]
nccl: {forbidden: [NCCL_ALGO, NCCL_PROTO]}
"""


def torch_version() -> str:
    from importlib.metadata import version
    return version("torch").split("+")[0]


def policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return path


def test_unmet_policy_fails_with_junit_and_metrics(doctor_cli, tmp_path: Path) -> None:
    junit, prom = tmp_path / "out.xml", tmp_path / "doctor.prom"
    proc = doctor_cli("check", "--node", "--policy", str(policy(tmp_path, UNMEETABLE)), "--junit", str(junit),
                      "--prometheus", str(prom), env={"NCCL_ALGO": "Ring"})
    assert proc.returncode == 1, proc.stderr
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["gpus.count", "shm.min", "versions.pinned.torch", "nccl.forbidden.NCCL_ALGO",
                                              "nvlink.all_pairs"]
    failed = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert set(failed) == {"gpus.count", "shm.min", "versions.pinned.torch", "nccl.forbidden.NCCL_ALGO"}
    assert suite.get("failures") == "4" and suite.get("skipped") == "1" and suite.get("tests") == "5"
    assert "NCCL_ALGO=Ring" in failed["nccl.forbidden.NCCL_ALGO"].text
    assert "policy.yaml:4" in failed["versions.pinned.torch"].text
    text = prom.read_text()
    assert 'doctor_check_status{check="shm.min"} 1' in text and 'doctor_check_status{check="nvlink.all_pairs"} 2' in text
    assert "doctor_check_exit_code 1" in text
    parser = pytest.importorskip("prometheus_client.parser")
    families = {f.name: f for f in parser.text_string_to_metric_families(text)}
    assert len(families["doctor_check_status"].samples) == 5


def test_met_policy_passes(doctor_cli, tmp_path: Path) -> None:
    if any(k in os.environ for k in ("NCCL_ALGO", "NCCL_PROTO")):
        pytest.skip("the test runner itself sets a forbidden NCCL variable")
    proc = doctor_cli("check", "--node", "--json", "--policy", str(policy(tmp_path, MEETABLE % torch_version())))
    data = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    assert data["schema"] == "doctor.check/1" and data["counts"] == {"pass": 5, "fail": 0, "unchecked": 0}


def test_unmeasurable_policy_could_not_check(doctor_cli, tmp_path: Path) -> None:
    proc = doctor_cli("check", "--node", "--json", "--policy", str(policy(tmp_path, "busbw: {min_gbs: 10}\nshm: {min: 1M}\n")))
    assert proc.returncode == 3, proc.stdout
    checks = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}
    assert checks["busbw.min_gbs"]["status"] == "unchecked" and "needs a job" in checks["busbw.min_gbs"]["message"]


def test_malformed_policy_exits_2_with_file_and_line(doctor_cli, tmp_path: Path) -> None:
    path = policy(tmp_path, "shm: {min: 1G}\nmemlock:\n  minimum: 64M\n")
    proc = doctor_cli("check", "--policy", str(path))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"doctor: {path}:3: unknown key 'minimum' in memlock (known: min)"
    assert "Traceback" not in proc.stderr


def test_offline_check_of_uploaded_artifacts(doctor_cli, tmp_path: Path) -> None:
    env_dump = tmp_path / "env.txt"
    env_dump.write_text("NCCL_DEBUG=INFO\nNCCL_PROTO=LL\n")
    proc = doctor_cli("check", "--offline", "--json", "--policy", str(policy(tmp_path, "nccl: {forbidden: [NCCL_PROTO]}\n")),
                      str(env_dump))
    assert proc.returncode == 1
    (check,) = json.loads(proc.stdout)["checks"]
    assert check["status"] == "fail" and "env.txt:2" in check["evidence"][0]


def test_slurm_dry_run_prints_the_drain(doctor_cli, tmp_path: Path) -> None:
    proc = doctor_cli("check", "--slurm", "--dry-run", "--policy", str(policy(tmp_path, "gpus: 8\n")))
    assert proc.returncode == 1
    host = socket.gethostname().split(".")[0]
    assert f"would run: scontrol update NodeName={host} State=DRAIN 'Reason=doctor: gpus.count'" in proc.stderr


def test_dry_run_without_slurm_is_usage(doctor_cli) -> None:
    proc = doctor_cli("check", "--dry-run")
    assert proc.returncode == 2 and "only applies to --slurm" in proc.stderr
