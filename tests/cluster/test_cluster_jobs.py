"""Real `doctor cluster` jobs: torchrun with 4 ranks on loopback, a rank that cannot reach its store, and
2-3 "nodes" in network namespaces (healthy; one node with other versions/env; one rate-limited link; a port
dropped between two nodes). Each must name the right node and cause, each within 60 s."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_jobs import REPO, env, run_local_job, run_netns_job

QUICK = ("--bandwidth-seconds", "1", "--rendezvous-timeout", "20")
CLUSTER_CAUSES = {"version_mismatch", "nccl_env_misuse", "port_blocked", "slow_network_link", "straggler", "rank_config_error",
                  "master_addr_wrong", "wrong_socket_ifname"}


def test_torchrun_four_ranks_on_loopback(tmp_path: Path) -> None:
    run = run_local_job(tmp_path, 4, ("--bandwidth-seconds", "2"))
    assert run.report is not None, run.logs
    cluster = run.report["cluster"]
    assert (cluster["world_size"], cluster["ranks"], cluster["transport"]) == (4, 4, "gloo")
    assert [n["ranks"] for n in cluster["nodes"]] == [[0, 1, 2, 3]]
    assert {b["op"] for b in cluster["busbw"]} == {"all_reduce", "all_gather"}
    assert len(cluster["timing"]) == 4
    assert not run.causes() & CLUSTER_CAUSES, run.report["diagnoses"]


def test_rank_without_its_store_names_the_peer(tmp_path: Path) -> None:
    import socket
    with socket.socket() as s:                 # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "doctor", "cluster", "--json", "--rendezvous-timeout", "2"], cwd=REPO,
                          env=env({"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}),
                          capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 60
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert f"rank 1 on {socket.gethostname()}: rendezvous failed: could not reach 127.0.0.1:{port} (refused)" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["cluster"]["unreachable_peer"] == f"127.0.0.1:{port}"
    assert report["diagnoses"][0]["cause"] == "master_addr_wrong"
    assert "Traceback" not in proc.stderr


def netns_run(tmp_path: Path, **kw) -> object:  # type: ignore[no-untyped-def]
    run = run_netns_job(tmp_path, 3, **kw)
    assert run.seconds < 60, f"took {run.seconds:.0f}s"
    assert run.report is not None, {k: v[-3000:] for k, v in run.logs.items()}
    assert run.report["cluster"]["ranks"] == 3
    return run


@pytest.mark.netns
@pytest.mark.needs("netns")
def test_healthy_three_nodes(tmp_path: Path) -> None:
    run = netns_run(tmp_path, args=QUICK)
    assert [n["name"] for n in run.report["cluster"]["nodes"]] == ["node0", "node1", "node2"]
    assert len(run.report["cluster"]["pairs"]) == 3
    assert not run.causes() & CLUSTER_CAUSES, run.report["diagnoses"]


@pytest.mark.netns
@pytest.mark.needs("netns")
def test_node_with_other_versions_and_env(tmp_path: Path) -> None:
    odd = {"NCCL_ALGO": "Tree", "DOCTOR_TEST_VERSIONS": "torch=2.0.0"}
    run = netns_run(tmp_path, args=QUICK + ("--pair-seconds", "0"), node_env=lambda i: odd if i == 1 else {})
    assert {"version_mismatch", "nccl_env_misuse"} <= run.causes_naming("node1"), run.report["diagnoses"]
    assert not run.causes_naming("node0") & CLUSTER_CAUSES and not run.causes_naming("node2") & CLUSTER_CAUSES


@pytest.mark.netns
@pytest.mark.needs("netns", "tc")
def test_rate_limited_link_found_by_pair_tests(tmp_path: Path) -> None:
    run = netns_run(tmp_path, args=QUICK + ("--pair-bytes", "262144"),
                    fault=lambda c: c.rate_limit(2, rate="8mbit", burst="32kbit", latency="400ms"))
    top = run.report["diagnoses"][0]
    assert top["cause"] == "slow_network_link" and top["title"].startswith("node2's network link is slow"), top
    assert len(run.report["cluster"]["pairs"]) == 3          # three nodes: the ring is every pair


@pytest.mark.netns
@pytest.mark.needs("netns", "firewall")
def test_port_dropped_between_two_nodes(tmp_path: Path) -> None:
    run = netns_run(tmp_path, args=QUICK + ("--probe-port", "29511"),
                    fault=lambda c: c.drop_port(2, 29511, from_node=1))
    top = run.report["diagnoses"][0]
    assert top["cause"] == "port_blocked" and top["title"].startswith("node1 cannot open a TCP connection to node2"), top
    assert run.report["cluster"]["unreachable"] == ["node1 -> node2 (timeout)"]
    assert run.report["cluster"]["transport"] == "store"
