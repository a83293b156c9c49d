"""An `ip addr` IPv6 prefix is a subnet like an IPv4 one (issue 12, route_conflict on RoCE v2 IPv6 GIDs).

Each text is real output from the case named beside it; each test asserts what the probe and the aggregate read.
"""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate_host import route_conflicts
from doctor.probing.contract import parse_document
from probes.net_interfaces import NetInterfaces

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _links(path: Path) -> list:  # type: ignore[no-untyped-def]
    return parse_document(NetInterfaces, path.read_text(encoding="utf-8"), source=path.name, node="input")


def test_two_interfaces_in_one_ipv6_120_are_one_subnet() -> None:
    # nccl#1405: net4 fd00:...:3:ff20/120 and net1 fd00:...:3:ff22/120, the RoCE VFs of one node
    facts = _links(CASES / "route-nccl-1405-same-subnet-nics" / "input" / "ip_addr.txt")
    nets = {f.name: f.network for f in facts if f.KIND == "net.link"}
    assert nets == {"net4": "fd00:1148:9000:5000:4:200:3:ff00/120", "net1": "fd00:1148:9000:5000:4:200:3:ff00/120"}
    [conflict] = route_conflicts(facts)
    assert conflict.interfaces == "net4,net1"


def test_link_local_ipv6_addresses_make_no_subnet() -> None:
    facts = _links(CASES / "route-nccl-1405-same-subnet-nics" / "input" / "ip_addr.txt")
    assert not [f for f in facts if f.KIND == "net.link" and f.address.startswith("fe80")]
