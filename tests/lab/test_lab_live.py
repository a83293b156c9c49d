"""Live lab runs: real gloo jobs with real faults, recorded into a tmp dir.

The namespace scenarios skip before they start, with the reason (tests/needs.py), where network
namespaces cannot be made or a tool they use is missing. When the `doctor` package is importable, its top
diagnosis for each recorded incident must name the scenario's cause.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from lab.record import answer_file, library_site, record
from lab.scenarios import by_name

REPO = Path(__file__).resolve().parents[2]


def run_live(name: str, tmp_path: Path) -> Path:
    start = time.monotonic()
    res = record(by_name()[name], tmp_path / name, f"python -m lab.run --only {name}")
    assert time.monotonic() - start < 60
    assert res.ok, f"expected text missing from the logs: {res.missing}"
    return res.out_dir


def doctor_top_cause(incident: Path, tmp_path: Path) -> tuple[str | None, str]:
    """`doctor analyze --json` on the incident's folder (the answer lies beside it, not in it)."""
    inputs = incident
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "doctor", "analyze", "--json", str(inputs)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    diagnoses = json.loads(proc.stdout)["diagnoses"]
    return (diagnoses[0]["cause"] if diagnoses else None), proc.stdout[:2000]


def check_doctor(incident: Path, tmp_path: Path) -> None:
    pytest.importorskip("doctor")
    expected = yaml.safe_load(answer_file(incident).read_text())
    cause, report = doctor_top_cause(incident, tmp_path)
    assert cause == expected["cause"], report


@pytest.mark.netns
@pytest.mark.needs("netns", "firewall")
def test_store_port_dropped_times_out(tmp_path: Path) -> None:
    out = run_live("store-port-dropped-netns", tmp_path)
    node1 = (out / "node1.log").read_text()
    assert "The client socket has timed out after 6000ms while trying to connect to (10.213.0.1, 29500)" in node1
    assert "Connection refused" not in node1  # dropped, not refused
    assert "1/2 clients joined" in (out / "node0.log").read_text()
    check_doctor(out, tmp_path)


@pytest.mark.netns
@pytest.mark.needs("netns")
def test_gloo_ifname_missing_on_one_node(tmp_path: Path) -> None:
    out = run_live("gloo-ifname-missing-netns", tmp_path)
    assert "Unable to find address for: eth0" in (out / "node1.log").read_text()
    node0 = (out / "node0.log").read_text()
    assert "Unable to find address" not in node0 and "wait timeout after 6000ms" in node0
    assert "GLOO_SOCKET_IFNAME=eth0" in (out / "env.txt").read_text()
    check_doctor(out, tmp_path)


def test_peer_exit_on_loopback(tmp_path: Path) -> None:
    """No namespaces needed: one rank dies inside an all_reduce, the other sees the reset."""
    out = run_live("peer-exits-mid-collective", tmp_path)
    assert "process dies now" in (out / "rank1.log").read_text()
    # Reset or closed depends on whether the dying rank had unread data: both are real.
    assert re.search(r"Connection (reset|closed) by peer", (out / "rank0.log").read_text())
    check_doctor(out, tmp_path)


def test_store_port_held_by_another_program(tmp_path: Path) -> None:
    """No namespaces needed: a TCP service holds MASTER_PORT; rank 1's store ping gets its banner back."""
    out = run_live("store-port-held-by-other-service", tmp_path)
    rank1 = (out / "rank1.log").read_text()
    assert "Ping failed, invalid value returned from server" in rank1
    assert "EADDRINUSE" in (out / "rank0.log").read_text()
    check_doctor(out, tmp_path)
    # rank 1's log alone, the way a worker's log is often all that is uploaded: still the port, not a missing rank 0
    cause, report = doctor_top_cause(out / "rank1.log", tmp_path)
    assert cause == "port_in_use", report


@pytest.mark.netns
@pytest.mark.needs("netns")
def test_second_nic_in_the_subnet_takes_the_route(tmp_path: Path) -> None:
    """node1 gets eth1 in 10.213.0.0/24 on a switch with nobody on it, and eth1's route wins: the store connect
    fails with No route to host (ARP unanswered), the saved `ip route` shows both routes, doctor names the route."""
    out = run_live("route-conflict-worker-netns", tmp_path)
    assert "errno: 113 - No route to host" in (out / "node1.log").read_text()
    routes = (out / "node1-ip-route.txt").read_text().splitlines()
    assert [r.split()[2] for r in routes if r.startswith("10.213.0.0/24")] == ["eth1", "eth0"]
    check_doctor(out, tmp_path)


@pytest.mark.netns
@pytest.mark.needs("netns")
def test_localhost_as_master_address_fails_only_on_the_worker(tmp_path: Path) -> None:
    """torch 2.13's static rendezvous on two nodes: the worker told `--master-addr localhost` dials its own loopback
    and times out (doctor: master_addr_wrong); the master told localhost serves the store on every interface, and
    a worker given the master's address joins it: the job trains. So a loopback master address in a multi-node
    command is wrong only on a node that is not the master (why pytorch#76367's two commands stay unread)."""
    worker = run_live("torchrun-worker-master-localhost-netns", tmp_path)
    assert "while trying to connect to (localhost, 29500)" in (worker / "node1.log").read_text()
    check_doctor(worker, tmp_path)
    master = run_live("torchrun-master-localhost-netns", tmp_path)
    for node, rank in (("node0.log", 0), ("node1.log", 1)):
        assert f"[rank{rank}]" in (text := (master / node).read_text()) and text.rstrip().endswith("done")


def needs_library(name: str) -> pytest.MarkDecorator:
    """Skip, with lab.record's own reason, where the scenario's library (kept off the shared venv) is not installed."""
    try:
        library_site(name)
        reason = ""
    except RuntimeError as err:
        reason = str(err)
    return pytest.mark.skipif(bool(reason), reason=reason)


@pytest.mark.netns
@pytest.mark.needs("netns")
@needs_library("accelerate")
def test_accelerate_machine_rank_twice_leaves_a_role_record_missing(tmp_path: Path) -> None:
    out = run_live("accelerate-machine-rank-duplicate-netns", tmp_path)
    for node in ("node0.log", "node1.log"):
        text = (out / node).read_text()
        assert "keys: /none/torchelastic/role_info/0, /none/torchelastic/role_info/1" in text
        assert "clients joined" not in text     # both launchers reached the store
    check_doctor(out, tmp_path)


@pytest.mark.netns
@pytest.mark.needs("netns")
@needs_library("lightning")
def test_lightning_node_rank_twice_announces_global_rank_0_on_both_nodes(tmp_path: Path) -> None:
    out = run_live("lightning-node-rank-duplicate-netns", tmp_path)
    for node in ("node0.log", "node1.log"):
        assert "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2" in (out / node).read_text()
    check_doctor(out, tmp_path)


@pytest.mark.netns
@pytest.mark.needs("netns", "firewall")
@needs_library("tensorflow")
def test_tensorflow_worker_behind_a_dropped_port_never_registers(tmp_path: Path) -> None:
    out = run_live("tf-grpc-port-dropped-netns", tmp_path)
    assert "Waiting for 1/2 tasks to connect" in (out / "node0.log").read_text()
    node1 = (out / "node1.log").read_text()
    assert "Started server with target: grpc://10.213.0.2:29500" in node1
    assert "Coordination agent has successfully connected" not in node1
    check_doctor(out, tmp_path)


@pytest.mark.netns
@pytest.mark.needs("netns", "ssh")
@needs_library("deepspeed")
def test_deepspeed_runner_stops_at_its_ssh_check(tmp_path: Path) -> None:
    out = run_live("deepspeed-ssh-unreachable-netns", tmp_path)
    assert "was not reachable via ssh" in (out / "launcher.log").read_text()
    check_doctor(out, tmp_path)
