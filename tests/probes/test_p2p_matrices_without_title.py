"""p2pBandwidthLatencyTest pasted from its matrices on (no title, no "CAN Access Peer" lines): the connectivity
matrix says which pairs are peer-capable, and the run is read as a whole one (probes/p2p_bandwidth.py).

Real text: aikitoria/open-gpu-kernel-modules#9 (two RTX 5090, P2P writes at 2-12 GB/s against 42 GB/s staged; the
maintainer's cause: the GPU's BAR1 could not be assigned), held-out batch LK, where doctor answered healthy. Two
healthy pastes of the same kind stay healthy: an H100 NV18 box's bidirectional matrix (nccl#1264) and six 4090s
(tinygrad's README).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_document
from probes.p2p_bandwidth import P2pBandwidthTest

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
SLOW = CASES / "p2p-aikitoria-9-5090-bar1-no-space" / "input"


def test_the_matrices_alone_are_sniffed_and_give_each_pair() -> None:
    text = next(p for p in SLOW.iterdir() if "Connectivity" in p.read_text()).read_text()
    assert P2pBandwidthTest.sniff(text)
    facts = parse_document(P2pBandwidthTest, text)
    pairs = sorted((f.get("gpu_a"), f.get("gpu_b"), f.get("gbps_enabled")) for f in facts if f.KIND == "p2p.pair")
    assert pairs == [(0, 1, 12.19), (1, 0, 2.01)]
    test = next(f for f in facts if f.KIND == "p2p.test")
    assert test.get("slower_with_p2p") == 2 and test.get("peer_pairs") == 2


def test_the_slow_pasted_run_is_broken_p2p() -> None:
    report = diagnose_files([str(SLOW)])
    assert report.diagnoses[0].cause == "p2p_broken" and "PEER002" in report.diagnoses[0].rules


@pytest.mark.parametrize("case", ["healthy-nccl-1264-h100-nv18-p2p-bidir-matrix",
                                  "healthy-tinygrad-p2p-readme-6x4090-allreduce-busbw24"])
def test_healthy_pasted_matrices_stay_healthy(case: str) -> None:
    assert diagnose_files([str(CASES / case / "input")]).healthy


def test_a_bandwidth_table_of_another_tool_is_not_sniffed() -> None:
    assert not P2pBandwidthTest.sniff("#       size         count      type   redop    root     time   algbw   busbw\n")
