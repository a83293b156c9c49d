"""Derived facts of a whole job (doctor cluster) and of node summaries a policy compares against.

Pure functions of the facts, listed in doctor.aggregate.AGGREGATORS. Facts of kinds that other modules
define (gpu.pcie, ib.port, topo.expected of the node probes) are read by KIND and field name, so this
module works with or without them in the build.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from statistics import median
from typing import Any, Iterable

from doctor.cluster import pairing
from doctor.facts import Fact
from doctor.facts.cluster import (BusBandwidth, BusbwCheck, ClusterRank, JobIbSummary, NodeInfo, NodeSkew, PairBandwidth,
                                  PcieSummary, RankTiming, SlowLink, Straggler)
from doctor.facts.env import EnvVar, PackageVersion, ShmSize, Ulimit
from doctor.facts.policy import PolicyMin

UNSET = "<unset>"
SKEW_ENV = ("NCCL_", "GLOO_", "TORCH_NCCL_", "TORCH_DISTRIBUTED", "TORCH_GLOO", "MASTER_ADDR", "MASTER_PORT", "UCX_", "FI_",
            "CUDA_DEVICE_ORDER")
NOT_SKEW_ENV = ("NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS", "NCCL_COMM_ID")
STRAGGLER_RATIO = 2.0      # fixed work at least this many times the others' median ...
STRAGGLER_GAP_S = 0.005    # ... and this much longer


def _of(facts: Iterable[Fact], kind: str) -> list[Any]:
    return [f for f in facts if f.KIND == kind]


def node_skew(facts: list[Fact]) -> list[Fact]:
    """Nodes whose NCCL/gloo environment, package versions or net plugin differ from the other nodes'.

    Only nodes that `doctor cluster` gathered live (a cluster.node fact) are compared: logs of several nodes
    echo different subsets of their environment, which is no skew. The majority value is the norm; on a tie,
    the node of rank 0.
    """
    infos = {f.node: f for f in _of(facts, NodeInfo.KIND)}
    if len(infos) < 2:
        return []
    values: dict[tuple[str, str], dict[str, tuple[str, Fact]]] = defaultdict(dict)
    for f in _of(facts, EnvVar.KIND):
        if f.node in infos and f.origin.source == "environment" and f.name.startswith(SKEW_ENV) and f.name not in NOT_SKEW_ENV:
            values[("env", f.name)][f.node] = (f.value, f)
    for f in _of(facts, PackageVersion.KIND):
        known = values[("version", f.name)].get(f.node)
        if f.node in infos and (known is None or len(f.version) > len(known[0])):
            values[("version", f.name)][f.node] = (f.version, f)
    for node, info in infos.items():
        values[("net_plugin", "NCCL net plugin")][node] = (info.net_plugin or UNSET, info)
        if info.gpus >= 0:
            values[("resource", "gpus")][node] = (str(info.gpus), info)
        if info.rdma_devices >= 0:
            values[("resource", "rdma_devices")][node] = (str(info.rdma_devices), info)
    for f in _of(facts, ShmSize.KIND):
        if f.node in infos and f.size >= 0:
            values[("resource", "shm_bytes")][f.node] = (f"{f.size:.0f}", f)
    for f in _of(facts, Ulimit.KIND):
        if f.node in infos and f.name == "memlock":
            values[("resource", "memlock_kb")][f.node] = ("unlimited" if f.kb < 0 else str(f.kb), f)
    root = next((f.node for f in _of(facts, ClusterRank.KIND) if f.rank == 0), sorted(infos)[0])
    out: list[Fact] = []
    for (what, name), by_node in sorted(values.items()):
        if what == "env":
            for node in infos:
                by_node.setdefault(node, (UNSET, infos[node]))
        out += _odd_nodes(what, name, by_node, root, len(infos))
    return out


def _odd_nodes(what: str, name: str, by_node: dict[str, tuple[str, Fact]], root: str, total: int) -> list[Fact]:
    counts = Counter(v for v, _ in by_node.values())
    if len(counts) < 2:
        return []
    top = counts.most_common()
    norm = top[0][0] if top[0][1] > top[1][1] else by_node.get(root, (top[0][0], None))[0]
    return [NodeSkew(node=node, rank=fact.rank, origin=fact.origin, what=what, name=name, value=value, majority=norm,
                     majority_nodes=counts[norm], nodes=total, below=what == "resource" and _amount(value) < _amount(norm))
            for node, (value, fact) in sorted(by_node.items()) if value != norm]


def _amount(text: str) -> float:
    return float("inf") if text == "unlimited" else float(text) if text.replace(".", "", 1).isdigit() else -1.0


def slow_links(facts: list[Fact]) -> list[Fact]:
    """Pair tests -> the node or the link they convict (doctor.cluster.pairing.verdicts)."""
    tests = _of(facts, PairBandwidth.KIND)
    if len(tests) < 2:
        return []
    names = sorted({f.node for f in tests} | {f.peer for f in tests})
    index = {n: i for i, n in enumerate(names)}
    results = {pairing.pair(index[f.node], index[f.peer]): f.gbs for f in tests}
    witness = {pairing.pair(index[f.node], index[f.peer]): f for f in tests}
    out: list[Fact] = []
    for v in pairing.verdicts(results):
        key = next(p for p in witness if v.node in p and (v.peer < 0 or v.peer in p) and results[p] == v.gbs)
        out.append(SlowLink(node=names[v.node], origin=witness[key].origin, scope=v.scope,
                            peer=names[v.peer] if v.peer >= 0 else "", gbs=v.gbs, median_gbs=round(v.baseline, 6),
                            ratio=round(v.gbs / v.baseline, 4) if v.baseline > 0 else -1, tests=v.tests))
    return out


def stragglers(facts: list[Fact]) -> list[Fact]:
    timings = [f for f in _of(facts, RankTiming.KIND) if f.work_s > 0]
    if len(timings) < 2 or any(f.shared for f in timings):
        return []
    out: list[Fact] = []
    for f in timings:
        mid = median(g.work_s for g in timings if g is not f)
        if f.work_s >= STRAGGLER_RATIO * mid and f.work_s - mid >= STRAGGLER_GAP_S:
            out.append(Straggler(node=f.node, rank=f.rank, origin=f.origin, work_s=f.work_s, median_s=round(mid, 6),
                                 ratio=round(f.work_s / mid, 2)))
    return out


def busbw_check(facts: list[Fact]) -> list[Fact]:
    """Peak busbw per op against the expected figure: from topology (NCCL only), else a policy minimum."""
    runs = _of(facts, BusBandwidth.KIND)
    if not runs:
        return []
    expected, basis, limited = _expected(facts, runs)
    out: list[Fact] = []
    for op in sorted({f.op for f in runs}):
        best = max((f for f in runs if f.op == op), key=lambda f: f.busbw_gbs)
        ratio = round(best.busbw_gbs / expected, 4) if expected > 0 else -1
        out.append(BusbwCheck(node=best.node, rank=best.rank, origin=best.origin, op=op, measured_gbs=best.busbw_gbs,
                              expected_gbs=expected, ratio=ratio, basis=basis, limited_by=limited))
    return out


def _expected(facts: list[Fact], runs: list[Any]) -> tuple[float, str, str]:
    slow = slow_links(facts)
    limited = (f"{slow[0].node}'s network link" if slow[0].scope == "node" else f"the link {slow[0].node} - {slow[0].peer}") \
        if slow else ""
    if any(f.backend == "nccl" for f in runs):
        multi = max(f.nodes for f in runs) > 1
        links = [f for f in _of(facts, "topo.expected") if getattr(f, "expected_gbs", -1) > 0
                 and str(getattr(f, "b", "")).upper().startswith("GPU") != multi]
        if links:
            worst = min(links, key=lambda f: f.expected_gbs)
            return worst.expected_gbs, "topology", limited or f"{worst.a}-{worst.b} {worst.link_class} on {worst.node}"
    policy = [f for f in _of(facts, PolicyMin.KIND) if f.measure == "busbw_gbs"]
    if policy:
        return max(f.value for f in policy), "policy", limited
    return -1.0, "", limited


def pcie_summary(facts: list[Fact]) -> list[Fact]:
    by_node: dict[str, list[Any]] = defaultdict(list)
    for f in _of(facts, "gpu.pcie"):
        if getattr(f, "gpu", -1) >= 0:
            by_node[f.node].append(f)
    return [PcieSummary(node=node, origin=links[0].origin, gpus=len({l.gpu for l in links}),
                        min_gen=min((l.gen_max for l in links if l.gen_max > 0), default=-1),
                        min_width=min((l.width for l in links if l.width > 0), default=-1))
            for node, links in sorted(by_node.items())]


def ib_summary(facts: list[Fact]) -> list[Fact]:
    by_node: dict[str, list[Any]] = defaultdict(list)
    for f in _of(facts, "ib.port"):
        by_node[f.node].append(f)
    out: list[Fact] = []
    for node, ports in sorted(by_node.items()):
        active = [p for p in ports if getattr(p, "active", False) or str(getattr(p, "state", "")).upper().endswith("ACTIVE")]
        out.append(JobIbSummary(node=node, origin=ports[0].origin, ports=len(ports), active=len(active),
                             min_active_gbps=min((p.rate_gbps for p in active if p.rate_gbps > 0), default=-1)))
    return out

