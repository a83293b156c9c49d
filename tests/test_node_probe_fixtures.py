"""Node probe parsers beyond their goldens (tests/probes/test_goldens.py checks every fixture's facts):
each recognises its own real-format fixtures and no other node artifact, and none raises on hostile text."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doctor.probing.contract import ParseContext, parse_lines
from probes import DOCUMENT_PROBES, LINE_PROBES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probes"
NODE_PROBES = ("topo_matrix", "nvidia_smi_query", "nvml", "ibv_devinfo", "ibstat", "rdma_link", "kernel_modules",
               "lspci", "net_interfaces", "reachability")


def _fixtures(folder: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / folder).glob("*") if not p.name.endswith(".facts.yaml"))


@pytest.mark.parametrize("name", NODE_PROBES)
def test_each_node_parser_recognises_its_own_fixtures_and_no_other_node_fixture(name: str) -> None:
    probe = next(p for p in DOCUMENT_PROBES if p.name == name)
    assert _fixtures(name), f"no fixtures for {name}"
    for folder in NODE_PROBES:
        for fixture in _fixtures(folder):
            head = fixture.read_text(encoding="utf-8")[:65536]
            assert probe.sniff(head) == (folder == name), f"{name}.sniff is wrong on {folder}/{fixture.name}"


TOKENS = list("0123 X\tNV:\n.,-=[]{}\"'()|") + ["GPU0", "GPU1", "NIC0", "NV18", "PIX", "SYS", "mlx5_0", "hca_id:", "port:",
                                              "state:", "PORT_ACTIVE (4)", "Link Width", "Max", "Current", " : ", "16x",
                                              '{"doctor": "nvml/1"', '{"doctor": "reachability/1"', "ACSCtl:", "LnkSta:",
                                              "Speed 8GT/s", "Width x", "/dev/shm", "iommu=", "CA '", "Port 1:", "link "]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=120).map("".join))
def test_node_parsers_never_raise_on_hostile_text(text: str) -> None:
    for probe in DOCUMENT_PROBES:
        if probe.name in NODE_PROBES:
            probe.sniff(text)
            probe().parse(text, ParseContext(source="fuzz", probe=probe.name))
    for line_probe in LINE_PROBES:
        if line_probe.name in ("dev_shm", "iommu", "pcie_kernel"):
            parse_lines(line_probe, text)


HOSTILE_JSON = (
    '{"doctor": "nvml/1", "devices": [{"index": 0, "pcie": "x", "utilization": "z", "nvlinks": [1, null], '
    '"processes": "y", "ecc": [], "remapped_rows": 3, "fabric": [], "clocks_event_reasons": 5}, {"index": "1"}, 7], '
    '"p2p": [1, {"a": "0"}], "xid_events": {"a": 1}}',
    '{"doctor": "reachability/1", "targets": [{"host": 5, "port": "x", "seconds": "slow"}, null, "x"]}',
    '{"doctor": "nvml/1", "devices": ',
    '[{"ifname": 3, "addr_info": [{"local": null}, 5]}, "x", {"ifname": "a", "addr_info": 5}]',
)


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_json_parsers_take_wrong_types_without_raising(text: str) -> None:
    for probe in DOCUMENT_PROBES:
        if probe.name in ("nvml", "reachability", "net_interfaces") and probe.sniff(text):
            probe().parse(text, ParseContext(source="hostile", probe=probe.name))
