"""Derived facts about a node's fabric, computed from what the node probes read (rows of AGGREGATORS).

ib_summary   ports and active ports per node (several tools may report one port: active if any says so)
hca_check    each NCCL_IB_HCA entry against the ports the node has (prefix match, '=' exact, '^' exclude)
gid_choice   the GID index NCCL will use on each active RoCE port against the RoCE v2 IPv4 GIDs it has
rail_layout  how many NICs sit on a GPU's own PCIe switch (rails), with NCCL_CROSS_NIC
"""
from __future__ import annotations

from collections import defaultdict

from doctor.facts import Fact
from doctor.facts.env import EnvVar
from doctor.facts.fabric import GidChoice, HcaCheck, IbGid, IbPort, IbSummary, RailLayout
from doctor.facts.topo import TopoNic

LOCAL = ("PIX", "PXB")         # a NIC on the GPU's own PCIe switch: GPUDirect RDMA's path
_EMPTY_GIDS = ("::", "0000:0000:0000:0000:0000:0000:0000:0000")


def _ports(facts: list[Fact]) -> dict[str, dict[tuple[str, int], IbPort]]:
    by_node: dict[str, dict[tuple[str, int], IbPort]] = defaultdict(dict)
    for f in facts:
        if isinstance(f, IbPort):
            seen = by_node[f.node].get((f.device, f.port))
            if seen is None or (f.active and not seen.active):
                by_node[f.node][(f.device, f.port)] = f
    return by_node


def _setting(facts: list[Fact], name: str, node: str) -> EnvVar | None:
    """The variable as set on this node; else the job's one value when every node agrees."""
    found = [f for f in facts if isinstance(f, EnvVar) and f.name == name]
    mine = [f for f in found if f.node == node]
    if mine:
        return mine[-1]
    return found[-1] if found and len({f.value for f in found}) == 1 else None


def ib_summary(facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    for node, ports in _ports(facts).items():
        values = list(ports.values())
        out.append(IbSummary(node=node, origin=values[0].origin, ports=len(values),
                             active_ports=sum(p.active for p in values),
                             ib_active=sum(p.active and not p.roce for p in values),
                             roce_active=sum(p.active and p.roce for p in values),
                             devices=",".join(sorted({p.device for p in values}))))
    return out


def hca_check(facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    for node, ports in _ports(facts).items():
        var = _setting(facts, "NCCL_IB_HCA", node)
        if var is None or not var.value.strip() or var.value.lstrip().startswith("^"):
            continue
        text = var.value.strip()
        exact = text.startswith("=")
        known = ",".join(sorted({f"{d}:{p}" for d, p in ports}))
        for entry in [e.strip() for e in text.lstrip("=").split(",") if e.strip()]:
            name, _, port = entry.partition(":")
            matched = [p for (d, n), p in ports.items() if (d == name if exact else d.startswith(name))
                       and (not port.isdigit() or n == int(port))]
            out.append(HcaCheck(node=node, origin=var.origin, entry=entry, setting=text, found=bool(matched),
                                active=any(p.active for p in matched), known=known))
    return out


def gid_choice(facts: list[Fact]) -> list[Fact]:
    gids: dict[tuple[str, str, int], list[IbGid]] = defaultdict(list)
    for f in facts:
        if isinstance(f, IbGid) and f.gid not in _EMPTY_GIDS:
            gids[(f.node, f.device, f.port)].append(f)
    out: list[Fact] = []
    for node, ports in _ports(facts).items():
        var = _setting(facts, "NCCL_IB_GID_INDEX", node)
        configured = int(var.value) if var and var.value.strip().isdigit() else -1
        for (device, number), port in sorted(ports.items()):
            table = {g.index: g for g in gids.get((node, device, number), [])}
            typed = any(g.version in ("v1", "v2") for g in table.values())     # ibv_devinfo -v, not a lone default gid
            if not (port.roce and port.active and typed):
                continue
            chosen = table.get(configured)
            v2 = [i for i, g in sorted(table.items()) if g.version == "v2" and g.ipv4]
            out.append(GidChoice(node=node, origin=var.origin if var else port.origin, device=device, port=number,
                                 configured=configured, configured_found=chosen is not None,
                                 configured_version=chosen.version if chosen else "",
                                 configured_ipv4=bool(chosen and chosen.ipv4), v2_index=v2[0] if v2 else -1))
    return out


def rail_layout(facts: list[Fact]) -> list[Fact]:
    nics: dict[str, dict[str, list[TopoNic]]] = defaultdict(lambda: defaultdict(list))
    for f in facts:
        if isinstance(f, TopoNic):
            nics[f.node][f.nic].append(f)
    out: list[Fact] = []
    for node, by_nic in nics.items():
        if len(by_nic) < 2:
            continue
        var = _setting(facts, "NCCL_CROSS_NIC", node)
        rails = sum(any(x.link in LOCAL for x in rows) for rows in by_nic.values())
        first = next(iter(by_nic.values()))[0]
        out.append(RailLayout(node=node, origin=first.origin, nics=len(by_nic), rails=rails,
                              cross_nic=var.value.strip() if var else ""))
    return out
