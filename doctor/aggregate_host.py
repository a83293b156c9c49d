"""Derived facts of host configuration across nodes (rows of doctor.aggregate.AGGREGATORS).

mtu_skew         interfaces of different nodes on one subnet with different MTUs
route_conflicts  one node with two or more interfaces holding addresses in one subnet
firmware_skew    adapters of one board type whose firmware differs across nodes
Only nodes the content names count (doctor.probing.hosts): a file that names no host is no second node.
"""
from __future__ import annotations

from collections import defaultdict

from doctor.facts import Fact
from doctor.facts.hostconf import Firmware, FirmwareSkew, MtuSkew, NetLink, RouteConflict
from doctor.probing.hosts import UNKNOWN


def _links(facts: list[Fact]) -> list[NetLink]:
    return [f for f in facts if isinstance(f, NetLink) and f.network and not f.virtual]


def mtu_skew(facts: list[Fact]) -> list[Fact]:
    by_network: dict[str, dict[str, NetLink]] = defaultdict(dict)
    for link in _links(facts):
        if link.node != UNKNOWN and link.mtu > 0:
            by_network[link.network].setdefault(link.node, link)
    out: list[Fact] = []
    for network, by_node in sorted(by_network.items()):
        if len({l.mtu for l in by_node.values()}) < 2:
            continue
        node, link = min(sorted(by_node.items()), key=lambda item: item[1].mtu)     # one fact per subnet: the smallest MTU
        others = [f"{n} {l.name} {l.mtu}" for n, l in sorted(by_node.items()) if l.mtu != link.mtu]
        out.append(MtuSkew(node=node, origin=link.origin, network=network, interface=link.name, mtu=link.mtu,
                           others=", ".join(others)))
    return out


def route_conflicts(facts: list[Fact]) -> list[Fact]:
    by_node: dict[tuple[str, str], list[NetLink]] = defaultdict(list)
    for link in _links(facts):
        if all(l.name != link.name for l in by_node[(link.node, link.network)]):
            by_node[(link.node, link.network)].append(link)
    return [RouteConflict(node=node, origin=links[0].origin, network=network, interfaces=",".join(l.name for l in links))
            for (node, network), links in sorted(by_node.items()) if len(links) > 1]


def firmware_skew(facts: list[Fact]) -> list[Fact]:
    by_board: dict[str, dict[str, Firmware]] = defaultdict(dict)
    for f in facts:
        if isinstance(f, Firmware) and f.node != UNKNOWN and f.board and f.version:
            by_board[f.board].setdefault(f.node, f)
    out: list[Fact] = []
    for board, by_node in sorted(by_board.items()):
        if len({f.version for f in by_node.values()}) < 2:
            continue
        node, fw = min(sorted(by_node.items()), key=lambda item: _version(item[1].version))   # the oldest firmware
        others = [f"{n} {f.version}" for n, f in sorted(by_node.items()) if f.version != fw.version]
        out.append(FirmwareSkew(node=node, origin=fw.origin, device=fw.device, board=board, version=fw.version,
                                others=", ".join(others)))
    return out


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.replace("-", ".").split(".") if p.isdigit())


HOST_AGGREGATORS = (mtu_skew, route_conflicts, firmware_skew)
