"""NVIDIA's rdma_topo check: a FAIL verdict on a bridge's ACS bits is ACS in the way of GPU-memory RDMA (issue 12,
held-out batch GC).

Real text: NVIDIA/dgx-spark-playbooks, station-connect-two-stations: the example failure before its ACS step and the
expected success after it (fixtures/cases/gdr-dgx-spark-playbooks-station-rdma-topo-acs-fail and
healthy-dgx-spark-playbooks-station-rdma-topo-acs-ok).
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_document
from probes.rdma_topo import RdmaTopo

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _acs(case: str) -> list:
    text = "".join(p.read_text(encoding="utf-8") for p in sorted((CASES / case / "input").iterdir()))
    return [f for f in parse_document(RdmaTopo, text) if f.KIND == "pci.acs"]


def test_each_fail_verdict_is_a_bridge_whose_acs_is_in_the_way() -> None:
    found = [(f.bus_id, f.device, f.port_type, f.enabled, f.flags)
             for f in _acs("gdr-dgx-spark-playbooks-station-rdma-topo-acs-fail")]
    assert found == [
        ("0009:00:00.0", "grace_rp", "Root Port", True, "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+"),
        ("0009:02:00.0", "cx_switch", "", True, "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+"),
        ("0009:02:02.0", "cx_switch", "", True, "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+"),
    ]


def test_ok_verdicts_are_acs_as_the_path_needs_it_whatever_bits_stay_on() -> None:
    found = _acs("healthy-dgx-spark-playbooks-station-rdma-topo-acs-ok")
    assert len(found) == 3
    assert not any(f.enabled for f in found)
    assert any("CmpltRedir+" in f.flags for f in found)   # the bits alone would have read as redirecting
