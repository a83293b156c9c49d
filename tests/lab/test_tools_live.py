"""Live lab runs of real tools across two network namespaces (lab/tools.py), diagnosed by doctor.

iperf3 through a link shaped to 1 Gbit/s against an expectation of 10 Gbit/s must come out as a slow link with
both figures in the evidence; mpirun told to use an interface no node has must come out as the wrong interface.
Each test skips before it starts, with the reason, where namespaces or the tool are missing (tests/needs.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from lab.tools import by_name, missing_tools, record

REPO = Path(__file__).resolve().parents[2]


def live(name: str, tmp_path: Path) -> tuple[Path, dict]:
    tool = by_name()[name]
    assert not missing_tools(tool), "the test's needs marker must list the tool's needs"
    start = time.monotonic()
    out = record(tool, tmp_path / name)
    assert time.monotonic() - start < 60
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "doctor", "analyze", "--json", str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return out, json.loads(proc.stdout)


@pytest.mark.netns
@pytest.mark.needs("netns", "tc", *by_name()["iperf3-slow-link-netns"].needs)
def test_iperf3_through_1gbit_link_against_10gbit(tmp_path: Path) -> None:
    out, report = live("iperf3-slow-link-netns", tmp_path)
    client = (out / "node1-iperf3-client.txt").read_text()
    assert "receiver" in client and "Mbits/sec" in client, client[-500:]
    assert yaml.safe_load((out / "expectations.yaml").read_text()) == {"link_gbps": 10}
    top = report["diagnoses"][0]
    assert top["cause"] == "slow_network_link" and top["confidence"] >= 0.5, report["diagnoses"]
    notes = " ".join(e["note"] for e in top["evidence"])
    assert "expected 10 Gbit/s" in notes and "measured 0." in notes, notes
    assert "tbf rate 1gbit" in (out / "command.txt").read_text()


@pytest.mark.netns
@pytest.mark.needs("netns", *by_name()["mpirun-btl-if-include-missing-netns"].needs)
def test_mpirun_with_an_interface_no_node_has(tmp_path: Path) -> None:
    out, report = live("mpirun-btl-if-include-missing-netns", tmp_path)
    log = (out / "node0.log").read_text()
    assert "An invalid value was given for btl_tcp_if_include" in log and "eth9" in log, log[-1000:]
    assert report["diagnoses"][0]["cause"] == "wrong_socket_ifname", report["diagnoses"]
