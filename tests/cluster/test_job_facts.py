"""`doctor cluster --save-facts FILE` writes the job's facts; `doctor analyze FILE` (probes/job_facts.py) reads them
back and finds what the live run found. Recorded jobs: fixtures/cluster/ (python -m lab.cluster_record)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from cluster_jobs import REPO, run_local_job

from doctor.aggregate import aggregate
from doctor.cluster.output import write_job_facts
from doctor.facts import Origin
from doctor.facts.cluster import NodeInfo, PairReach
from doctor.facts.env import EnvVar, ShmSize
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES

RECORDED = REPO / "fixtures" / "cluster"


def read_back(path: Path) -> list:  # type: ignore[type-arg]
    return gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts


def test_saved_facts_read_back_with_their_origins(tmp_path: Path) -> None:
    facts = [EnvVar(node="n1", name="NCCL_IB_HCA", value="mlx5_0", origin=Origin("environment", 0, "NCCL_IB_HCA=mlx5_0",
                                                                                  "local_gather", "live")),
             ShmSize(node="n1", size=67108864.0, writable=True),
             NodeInfo(node="n1", gpus=0, rdma_devices=0),
             PairReach(node="n1", peer="n2", host="10.0.0.2", port=4100, outcome="timeout", reachable=False, seconds=3.0)]
    path = tmp_path / "job.json"
    write_job_facts(str(path), facts, {"world_size": 2, "facts": 4})
    back = read_back(path)                          # read by its stream probe alone: no line probe sees it
    assert back == facts and back[0].origin.source == "environment"


def test_broken_lines_are_dropped_not_the_file(tmp_path: Path) -> None:
    good = {"kind": "cluster.node", "node": "n1", "gpus": 8, "rdma_devices": 0}
    lines = ['{"schema":"doctor.job-facts/1","cluster":{}}', "not json", json.dumps({"kind": "no.such.kind"}),
             json.dumps({**good, "gpus": "eight"}), "[" * 100000 + "]" * 100000, json.dumps(good), "[1, 2]"]
    path = tmp_path / "job.json"
    path.write_text("\n".join(lines) + "\n")
    back = [f for f in read_back(path) if f.KIND == "cluster.node"]
    assert [(f.node, f.gpus) for f in back] == [("n1", 8)]


@pytest.mark.parametrize("name,node,causes", [
    ("config-skew-3node", "node1", {"version_mismatch", "nccl_env_misuse", "shm_too_small"}),
    ("config-skew-3node", "node2", {"wrong_socket_ifname", "master_addr_wrong"}),
])
def test_recorded_job_is_diagnosed_offline(doctor_cli, name: str, node: str, causes: set[str]) -> None:
    proc = doctor_cli("analyze", "--json", str(RECORDED / name / "job-facts-rank0.json"))
    assert proc.returncode == 1, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    named = {d["cause"] for d in report["diagnoses"] if node in d["title"]}
    assert causes <= named, report["diagnoses"]


def test_live_job_and_its_saved_facts_agree(tmp_path: Path, doctor_cli) -> None:
    """A real 2-rank gloo job on loopback: the report of `doctor analyze` on the saved file names the live causes."""
    run = run_local_job(tmp_path, 2, ("--bandwidth-seconds", "1", "--expected-busbw", "1000",
                                      "--save-facts", str(tmp_path / "facts-{rank}.json")))
    assert run.report is not None, run.logs
    saved = tmp_path / "facts-0.json"
    assert saved.exists() and not (tmp_path / "facts-1.json").exists()
    proc = doctor_cli("analyze", "--json", str(saved))
    offline = json.loads(proc.stdout)
    assert {d["cause"] for d in offline["diagnoses"] if d["rules"]} == run.causes()
    assert "slow_network_link" in run.causes(), run.report["diagnoses"]       # gloo on loopback is far below 1000 GB/s


def test_recorded_job_is_checked_against_a_policy_offline(doctor_cli) -> None:
    proc = doctor_cli("check", "--offline", "--json", "--policy", str(REPO / "fixtures" / "policies" / "h100-site.yaml"),
                      str(RECORDED / "config-skew-3node" / "job-facts-rank0.json"))
    assert proc.returncode == 1, proc.stderr[-2000:]
    status = {c["id"]: c["status"] for c in json.loads(proc.stdout)["checks"]}
    assert status["gpus.count"] == "fail" and status["versions.equal.nvidia-cuda-runtime-cu12"] == "fail"
    assert status["shm.min"] == "fail" and status["versions.equal.torch"] == "pass"
