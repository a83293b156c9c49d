"""Derived facts about a node's fabric, computed from what the node probes read (rows of AGGREGATORS).

ib_summary   ports and active ports per node (several tools may report one port: active if any says so)
hca_check    each NCCL_IB_HCA entry against the ports the node has (prefix match, '=' exact, '^' exclude)
gid_choice   the GID index NCCL will use on each active RoCE port against the RoCE v2 IPv4 GIDs it has
rail_layout  how many NICs sit on a GPU's own PCIe switch (rails), with NCCL_CROSS_NIC
qp_timeouts  each ibv_modify_qp ETIMEDOUT with the signs around it: RoCE or not, NICs, NCCL_CROSS_NIC, GID kinds
rdma_present whether the input shows IB/RoCE hardware at all (ports, NCCL's HCAs, HCA settings, /dev/infiniband, IPoIB)
ud_timeouts  each UCX endpoint timeout with the node's RoCE evidence (Ethernet port, /RoCE HCA, IPv4-mapped GID, RoCE-only setting)
"""
from __future__ import annotations

from collections import defaultdict

from doctor.facts import Fact
from doctor.facts.env import ContainerDevice, EnvVar
from doctor.facts.fabric import (EndpointTimeout, GidChoice, HcaCheck, IbGid, IbPort, IbSummary, QpTimeout, RailLayout,
                                 RdmaPresent, UcxFatal)
from doctor.facts.launch import Interface
from doctor.facts.nccl import CallFailed, NcclHca
from doctor.facts.topo import TopoNic
from doctor.probing.hosts import UNKNOWN

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


def _here(facts: list[Fact], node: str) -> list[Fact]:
    """Facts of this node, and of files that name no host (they may well be this node's)."""
    return [f for f in facts if f.node in (node, UNKNOWN)]


def _ipv4_mapped(gid: str) -> str:
    """'10.6.0.4' for '::ffff:10.6.0.4', else ''."""
    return gid.lower().removeprefix("::ffff:") if gid.lower().startswith("::ffff:") and "." in gid else ""


def _gid_pair(local: str, remote: str) -> str:
    if not (local and remote):
        return ""
    a, b = _ipv4_mapped(local), _ipv4_mapped(remote)
    if bool(a) != bool(b):
        return "mixed"
    if a and b:
        return "same_subnet" if a.rsplit(".", 1)[0] == b.rsplit(".", 1)[0] else "cross_subnet"
    return ""


def _gid_wrong(call: CallFailed, roce: bool, pair: str, choices: list[GidChoice]) -> str:
    if pair == "mixed":
        return f"the two ends use different GID kinds (local {call.local_gid}, remote {call.remote_gid}): one side is not on the RoCE v2 IPv4 GID"
    if roce and call.local_gid.lower().startswith("fe80"):
        return f"local GID {call.local_gid} is link-local on RoCE: it does not route beyond the L2 segment"
    for g in choices:
        if g.v2_index >= 0 and call.gid_index >= 0 and call.gid_index != g.v2_index:
            return f"GID index {call.gid_index} is not the port's RoCE v2 IPv4 GID (index {g.v2_index})"
    return ""


def qp_timeouts(facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    derived = gid_choice(facts) + rail_layout(facts)      # aggregators see only gathered facts: derive what it needs
    for call in facts:
        if not (isinstance(call, CallFailed) and call.call == "ibv_modify_qp" and call.errno == "ETIMEDOUT"):
            continue
        here = _here(facts, call.node)
        hcas = [f for f in here if isinstance(f, NcclHca)]
        ports = [f for f in here if isinstance(f, IbPort)]
        rails = [f for f in derived if isinstance(f, RailLayout) and f.node in (call.node, UNKNOWN)]
        roce = call.roce or bool(roce_sign(here))
        nics = max(len({h.name for h in hcas}), len({p.device for p in ports}), *(r.nics for r in rails), 0)
        var = _setting(facts, "NCCL_CROSS_NIC", call.node)
        pair = _gid_pair(call.local_gid, call.remote_gid)
        choices = [f for f in derived if isinstance(f, GidChoice) and f.node in (call.node, UNKNOWN)
                   and f"{f.device}:{f.port}" == call.resource]
        out.append(QpTimeout(node=call.node, rank=call.rank, origin=call.origin, device=call.resource,
                             gid_index=call.gid_index, roce=roce, nics=nics, cross_nic=var.value.strip() if var else "",
                             gid_pair=pair, gid_wrong=_gid_wrong(call, roce, pair, choices)))
    return out


_IPOIB = ("ib", "ibp", "ibs")   # IPoIB interface names: ib0, ibp12s0, ibs3 (not "ibr..." bridges of other stacks)


def rdma_witness(f: Fact) -> tuple[str, str] | None:
    if isinstance(f, IbPort):
        return "rdma_port", f"{f.device}:{f.port}"
    if isinstance(f, NcclHca):
        return "nccl_hca", f.name
    if isinstance(f, EnvVar) and f.name in ("NCCL_IB_HCA", "NCCL_IB_GID_INDEX") and f.value.strip() \
            and not f.value.lstrip().startswith("^"):
        return "nccl_ib_setting", f"{f.name}={f.value}"
    if isinstance(f, ContainerDevice) and f.name in ("/dev/infiniband", "rdma_resource"):
        return "container_device", f.name
    if isinstance(f, Interface) and f.name[:2] == "ib" and f.name.rstrip("0123456789").startswith(_IPOIB) \
            and f.name[2:3].isalnum():
        return "ipoib_interface", f.name
    return None


def rdma_present(facts: list[Fact]) -> list[Fact]:
    """One fact per node whose input shows RDMA hardware: the first witness (the rules need only that it exists)."""
    out: dict[str, Fact] = {}
    for f in facts:
        if f.node in out:
            continue
        seen = rdma_witness(f)
        if seen:
            out[f.node] = RdmaPresent(node=f.node, origin=f.origin, source=seen[0], detail=seen[1])
    return list(out.values())


# settings that act only on an Ethernet (RoCE) port: pause frames, RoCE subnet and version, the RoCE GID index
ROCE_ONLY_SETTINGS = ("UCX_IB_ETH_PAUSE_ON", "UCX_IB_ROCE_LOCAL_SUBNET", "UCX_IB_ROCE_SUBNET_PREFIX_LEN", "UCX_IB_GID_INDEX",
                      "NCCL_IB_GID_INDEX", "NCCL_IB_ROCE_VERSION_NUM")


def roce_sign(facts: list[Fact]) -> str:
    """What in these facts shows a RoCE (Ethernet) RDMA port, '' when nothing does."""
    for f in facts:
        if isinstance(f, IbPort) and f.roce:
            return f"{f.device}:{f.port} has an Ethernet link layer"
        if isinstance(f, NcclHca) and f.link_layer == "RoCE":
            return f"NCCL uses {f.name}:{f.port}/RoCE"
        if isinstance(f, IbGid) and (f.ipv4 or f.version == "v2"):
            return f"GID[{f.index}] {f.gid} is a RoCE GID" + (f" (IPv4 {f.ipv4})" if f.ipv4 else "")
        if isinstance(f, EnvVar) and f.name in ROCE_ONLY_SETTINGS and f.value.strip():
            return f"{f.name}={f.value} is a RoCE setting"
    return ""


def ud_timeouts(facts: list[Fact]) -> list[Fact]:
    """One EndpointTimeout per UCX fatal timeout line, with the RoCE evidence of its node (or of files naming none)."""
    out: list[Fact] = []
    for f in facts:
        if isinstance(f, UcxFatal) and f.timeout:
            sign = roce_sign(_here(facts, f.node))
            out.append(EndpointTimeout(node=f.node, rank=f.rank, origin=f.origin, transport=f.transport,
                                       roce=bool(sign), roce_sign=sign))
    return out
