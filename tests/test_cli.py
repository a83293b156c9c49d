"""The CLI contract: exit codes, the JSON report shape (DESIGN section 6), one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHM_LOG = REPO / "fixtures" / "logs" / "nccl-shm-no-space.log"


def test_json_report_shape(doctor_cli) -> None:
    proc = doctor_cli("analyze", "--json", str(SHM_LOG))
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["schema"] == "doctor.report/1"
    top = data["diagnoses"][0]
    assert set(top) >= {"cause", "title", "confidence", "rules", "evidence", "fix"}
    assert top["cause"] == "shm_too_small"
    assert {"source", "line", "text"} <= set(top["evidence"][0])
    assert top["evidence"][0]["source"].endswith("nccl-shm-no-space.log")
    assert data["inputs"][0]["status"] == "ok"


def test_nothing_found_exits_zero(doctor_cli, tmp_path) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch 1 step 10 loss 2.31\nepoch 1 step 20 loss 2.11\n")
    proc = doctor_cli("analyze", str(log))
    assert proc.returncode == 0, proc.stderr
    assert "No known cause" in proc.stdout


def test_missing_path_is_one_line_exit_2(doctor_cli, tmp_path) -> None:
    proc = doctor_cli("analyze", str(tmp_path / "nope.log"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_usage_exits_2(doctor_cli) -> None:
    proc = doctor_cli("analyze", "--symptom", "sleepy", str(SHM_LOG))
    assert proc.returncode == 2


def test_symptom_reorders_toward_explaining_causes(doctor_cli) -> None:
    """A stated symptom moves probability toward the causes that explain it (taxonomy symptom lists), and a bare
    topology with no failure in it raises no alarm (only the guesses "if the job did fail", all small)."""
    topo = REPO / "fixtures" / "probes" / "topo_matrix" / "pcie-4gpu-pxb-pix-sys.txt"
    slow_run = REPO / "fixtures" / "nodes" / "pcie-topology-slow-allreduce"   # PHB/SYS topology + slow all_reduce
    def report(path: Path, *symptom: str) -> dict[str, float]:
        data = json.loads(doctor_cli("analyze", "--json", *symptom, str(path)).stdout)
        got = {d["cause"]: d["confidence"] for d in data["diagnoses"]}
        assert abs(sum(got.values()) + data["unexplained"] - 1.0) < 0.01
        return got

    bare = report(topo)
    assert all(p < 0.5 for p in bare.values()), bare   # topology alone: context, never an alarm
    data = json.loads(doctor_cli("analyze", "--json", str(topo)).stdout)
    assert data["healthy"] and all(d["if_failed"] and not d["rules"] for d in data["diagnoses"]), data["diagnoses"]
    # what it may say: which causes are likeliest if the job failed all the same (a PCIe switch: P2P among them)
    told = json.loads(doctor_cli("analyze", "--json", "--symptom", "slow_training", str(topo)).stdout)["diagnoses"]
    assert not any(d["rules"] for d in told), told    # still no sign of the cause: the symptom's guesses, all small
    assert all(d["confidence"] < 0.2 for d in told), told
    slow, hang = report(slow_run, "--symptom", "slow_training"), report(slow_run, "--symptom", "hang")
    assert max(slow, key=slow.get) == "no_nvlink_topology", slow
    assert slow["no_nvlink_topology"] > hang.get("no_nvlink_topology", 0.0), (slow, hang)


def test_rules_and_explain(doctor_cli) -> None:
    listing = doctor_cli("rules")
    assert listing.returncode == 0 and "NET001" in listing.stdout
    page = doctor_cli("explain", "NET001")
    assert page.returncode == 0 and "Why" in page.stdout and "port_blocked" in page.stdout
    assert doctor_cli("explain", "NOPE999").returncode == 2
