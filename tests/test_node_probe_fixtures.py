"""Node probe parsers on real-format fixtures (fixtures/probes/<probe>/), each against its golden facts file,
read through the whole offline path; and every new parser on hostile text (never raises)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from doctor.probing.contract import ParseContext, parse_lines
from probes import DOCUMENT_PROBES, LINE_PROBES
from tests.golden_facts import facts_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probes"
GOLDEN = sorted(FIXTURES.glob("*/*.facts.yaml"))
NODE_PROBES = ("topo_matrix", "nvidia_smi_query", "nvml", "ibv_devinfo", "ibstat", "rdma_link", "kernel_modules",
               "lspci", "net_interfaces", "reachability")


@pytest.mark.parametrize("golden", GOLDEN, ids=[f"{g.parent.name}/{g.name[:-len('.facts.yaml')]}" for g in GOLDEN])
def test_fixture_gives_its_golden_facts(golden: Path) -> None:
    expected = yaml.safe_load(golden.read_text())
    fixture = golden.with_name(expected["fixture"])
    assert facts_of(fixture, expected["kinds"]) == expected["facts"]


def test_every_node_fixture_has_a_golden_file() -> None:
    fixtures = [p for p in FIXTURES.glob("*/*") if not p.name.endswith(".facts.yaml")]
    missing = [str(p.relative_to(FIXTURES)) for p in fixtures if not p.with_name(p.name + ".facts.yaml").exists()]
    assert not missing, f"fixtures without golden facts: {missing}"


DIR_OF = {"topo_matrix": "topo"}      # fixture folder of each parser, when it is not the parser's name


@pytest.mark.parametrize("name", NODE_PROBES)
def test_each_node_parser_recognises_its_own_fixtures_and_no_other_node_fixture(name: str) -> None:
    probe = next(p for p in DOCUMENT_PROBES if p.name == name)
    folders = {DIR_OF.get(n, n) for n in NODE_PROBES}
    for fixture in (p for p in FIXTURES.glob("*/*") if not p.name.endswith(".facts.yaml")):
        head = fixture.read_text(encoding="utf-8")[:65536]
        if fixture.parent.name == DIR_OF.get(name, name):
            assert probe.sniff(head), f"{name} does not recognise {fixture.name}"
        elif fixture.parent.name in folders:
            assert not probe.sniff(head), f"{name} claims {fixture.parent.name}/{fixture.name}"


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
