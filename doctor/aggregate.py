"""Derived facts: what needs more than one fact to see (skew across nodes, per-node summaries, lagging ranks).

Rules only compare fields; anything that needs counting or grouping is computed here, once,
by the functions in AGGREGATORS, each a pure function of the facts gathered so far.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from doctor.aggregate_flight_recorder import flight_recorder, inspector_lag, stack_outliers
from doctor.aggregate_node import gid_choice, hca_check, ib_summary, qp_timeouts, rail_layout, rdma_present, rdma_witness
from doctor.aggregate_node import ud_timeouts
from doctor.aggregate_gpu_memory import gpu0_excess
from doctor.aggregate_nccl import duplicate_gpus, init_unfinished
from doctor.aggregate_outcome import survived
from doctor.aggregate_coll import coll_mismatch
from doctor.bandwidth import expected_bandwidth
from doctor.aggregate_cluster import busbw_check, node_skew, pcie_summary, slow_links, stragglers
from doctor.aggregate_cluster import ib_summary as job_ib_summary
from doctor.facts import Fact
from doctor.facts.collective import CollectiveProgress, CollectiveTimeout, RankLag
from doctor.facts.env import EnvVar, PackageVersion, VersionSkew
from doctor.facts.launch import ConnectError, HostName, HostsEntry, LaunchOption, RendezvousEndpoint, RendezvousTimeout
from doctor.facts.nccl import GdrState, IbUnavailable, NcclChannel, NcclLog, NcclNet, NcclSummary, NcclVersion
from doctor.facts.topo import TopoLink, TopoSummary
from doctor.facts.train import SlowRank, TrainSteps
from doctor.aggregate_host import HOST_AGGREGATORS
from doctor.aggregate_launch import LAUNCH_ENV_AGGREGATORS
from doctor.known_bugs import known_bugs
from doctor.launch_checks import LAUNCH_AGGREGATORS
from doctor.probing.hosts import UNKNOWN
from doctor.verdicts import bench_verdicts
from doctor.traces.skew import trace_job, trace_skew

_IB_ENV = ("NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_SL", "NCCL_NET_GDR_LEVEL")


def _of(facts: Iterable[Fact], cls: type[Fact]) -> list:
    return [f for f in facts if isinstance(f, cls)]


def version_skew(facts: list[Fact]) -> list[Fact]:
    """Same package, different versions on different nodes (NCCL versions from logs count too).

    Per node the most specific version string wins ('2.3.1+cu121' over '2.3.1'), so one node reporting a
    package twice in two wordings is not a skew; two nodes disagreeing is. A fact of a file whose content names
    no host (node unknown) belongs to no node: it cannot make a skew, with a known node or with another file.
    """
    per_node: dict[str, dict[str, Fact]] = defaultdict(dict)
    for f in _of(facts, PackageVersion):
        if f.node != UNKNOWN:
            _keep_most_specific(per_node[f.name], f)
    for f in _of(facts, NcclVersion):
        if f.node != UNKNOWN:
            _keep_most_specific(per_node["nccl (runtime)"], f)
    out: list[Fact] = []
    for name, by_node in sorted(per_node.items()):
        nodes_of: dict[str, list[str]] = defaultdict(list)
        local_everywhere = all("+" in f.version for f in by_node.values())
        for node, fact in by_node.items():   # '2.3.1+cu121' vs '2.3.1' is one version unless every node names its build
            nodes_of[fact.version if local_everywhere else fact.version.split("+")[0]].append(node)
        if len(nodes_of) < 2:
            continue
        text = ", ".join(f"{v} ({len(n)} node{'s' if len(n) > 1 else ''}: {', '.join(sorted(n)[:3])})"
                         for v, n in sorted(nodes_of.items()))
        witness = by_node[sorted(nodes_of.items())[-1][1][0]]
        out.append(VersionSkew(node="", origin=witness.origin, name=name, versions=text, count=len(nodes_of)))
    return out


def _keep_most_specific(by_node: dict[str, Fact], fact: Fact) -> None:
    known = by_node.get(fact.node)
    if known is None or len(fact.version) > len(known.version):
        by_node[fact.node] = fact


def nccl_summary(facts: list[Fact]) -> list[Fact]:
    """Per node with NCCL output: which network and GDR it used, whether the job has IB, how many nodes it spans.

    IB is "configured" only from evidence that the fabric exists or the user asked for it: RDMA ports (ibv_devinfo,
    ibstat, rdma link), NCCL's "NET/IB : Using [..]", NCCL_IB_* set by the user (NCCL_IB_DISABLE=0 said explicitly
    too), /dev/infiniband in the container, an IPoIB interface (ib0, ibp12s0) carrying NCCL's sockets.
    NCCL's own "NET/IB : No device found" is not such evidence: every machine without an HCA prints it.
    """
    logs = _of(facts, NcclLog)
    if not logs:
        return []
    ib_configured = any(isinstance(f, EnvVar) and f.name in _IB_ENV and f.value not in ("", "0") for f in facts) or \
        any(isinstance(f, EnvVar) and f.name == "NCCL_IB_DISABLE" and f.value.rstrip(".") == "0" for f in facts) or \
        any(rdma_witness(f) for f in facts)
    nodes = job_nodes(facts)
    old_bootstrap = _socket_line_is_bootstrap(facts)
    out: list[Fact] = []
    for log in logs:
        mine = [f for f in facts if f.node == log.node]
        nets = _transports(mine, old_bootstrap) | {f.transport.split("/")[1] for f in _of(mine, NcclChannel) if f.remote}
        out.append(NcclSummary(
            node=log.node, origin=log.origin, info_lines=log.info_lines,
            ib_used="IB" in nets, socket_used="Socket" in nets,
            gdr_seen=any(f.gdr for f in _of(mine, NcclChannel)) or any(f.enabled for f in _of(mine, GdrState)),
            net_channels=sum(1 for f in _of(mine, NcclChannel) if f.remote),
            ib_configured=ib_configured, nodes=nodes))
    return out


# NCCL 2.4.7 and before set up their bootstrap socket first and print it as "NET/Socket : Using [0]ib0" on every rank,
# before the plugin / IB / socket transport is chosen ("NET/IB : Using [0]mlx5_0" follows when IB is used); 2.4.8 and
# later print the bootstrap as "Bootstrap : Using". Below 2.4.8 that line alone says nothing about the transport.
_BOOTSTRAP_AS_NET_SOCKET_BELOW = 20408


def _socket_line_is_bootstrap(facts: list[Fact]) -> bool:
    versions = [f.version_num for f in _of(facts, NcclVersion) if f.version_num > 0]
    return bool(versions) and min(versions) < _BOOTSTRAP_AS_NET_SOCKET_BELOW


def _transports(mine: list[Fact], old_bootstrap: bool) -> set[str]:
    """The networks NCCL chose on one node. Under old_bootstrap a "NET/Socket : Using" line is the bootstrap's unless
    NCCL also said IB is unusable there (then the socket transport is what it falls back to)."""
    ib_out = any(_of(mine, IbUnavailable))
    return {f.net for f in _of(mine, NcclNet)
            if not (old_bootstrap and f.net == "Socket" and "NET/Socket" in f.origin.text and not ib_out)}


def job_nodes(facts: list[Fact]) -> int:
    """Nodes of the job as NCCL saw them: its own nNodes, else 2+ when a channel crosses the network or NCCL lines
    name several hosts, else 1 when every channel stays inside the node; -1 when nothing says."""
    logs = _of(facts, NcclLog)
    said = max((f.nodes for f in logs), default=-1)
    if said > 0:
        return said
    hosts = {f.node for f in logs if f.node != UNKNOWN}
    channels = _of(facts, NcclChannel)
    if len(hosts) > 1 or any(f.remote for f in channels):
        return max(len(hosts), 2)
    return 1 if channels else -1


def topo_summary(facts: list[Fact]) -> list[Fact]:
    by_node: dict[str, list[TopoLink]] = defaultdict(list)
    for f in _of(facts, TopoLink):
        by_node[f.node].append(f)
    out: list[Fact] = []
    for node, links in by_node.items():
        gpus = {l.gpu_a for l in links} | {l.gpu_b for l in links}
        out.append(TopoSummary(node=node, origin=links[0].origin, gpus=len(gpus), pairs=len(links),
                               nvlink_pairs=sum(l.path == "nvlink" for l in links),
                               pcie_switch_pairs=sum(l.path == "pcie_switch" for l in links),
                               host_pairs=sum(l.path in ("host_bridge", "numa", "cross_socket") for l in links)))
    return out


def rank_lag(facts: list[Fact]) -> list[Fact]:
    """Ranks whose last collective is behind the others' (watchdog SeqNum or last enqueued work)."""
    seqs: dict[int, tuple[int, Fact]] = {}
    for f in _of(facts, CollectiveProgress):
        if f.rank >= 0 and f.last_enqueued >= 0:
            seqs[f.rank] = max(seqs.get(f.rank, (-1, f)), (f.last_enqueued, f), key=lambda x: x[0])
    if not seqs:
        for f in _of(facts, CollectiveTimeout):
            if f.rank >= 0 and f.seq >= 0:
                seqs[f.rank] = max(seqs.get(f.rank, (-1, f)), (f.seq, f), key=lambda x: x[0])
    if len(seqs) < 2:
        return []
    top = max(s for s, _ in seqs.values())
    return [RankLag(node=f.node, rank=rank, origin=f.origin, seq=s, max_seq=top)
            for rank, (s, f) in sorted(seqs.items()) if s < top]


def rendezvous_endpoint(facts: list[Fact]) -> list[Fact]:
    """Check a launcher's rendezvous/master host against this host's name and its /etc/hosts, and say whether the
    input shows the rendezvous failing (a worker's endpoint is never its own name: only a failure makes it matter)."""
    hostnames = {f.name for f in _of(facts, HostName)}
    if not hostnames:
        return []
    failed = bool(_of(facts, RendezvousTimeout)) or any(
        f.transport in ("rdzv", "store") for f in _of(facts, ConnectError))
    env = {f.name: f.value for f in _of(facts, EnvVar)}
    entries = {f.name for f in _of(facts, HostsEntry)}
    out: list[Fact] = []
    for opt in _of(facts, LaunchOption):
        if opt.name not in ("rdzv_endpoint", "master_addr", "main_process_ip"):
            continue
        value = opt.value
        if value.startswith("$"):
            value = env.get(value.strip("${}"), value)
        host, _, port = value.rpartition(":") if value.count(":") == 1 else (value, "", "")
        host = host or value
        out.append(RendezvousEndpoint(node=opt.node, origin=opt.origin, host=host, port=int(port) if port.isdigit() else -1,
                                      backend="c10d" if opt.name == "rdzv_endpoint" else "static",
                                      matches_hostname=host in hostnames, in_hosts_file=host in entries, failed=failed))
    return out


def slow_rank(facts: list[Fact]) -> list[Fact]:
    """A rank whose own work per step (compute, or step minus communication wait) is >= 1.5x the others' median."""
    ranks = [f for f in _of(facts, TrainSteps) if f.steps >= 2]
    if len(ranks) < 2:
        return []
    own = {id(f): (f.compute_s if f.compute_s >= 0 else f.step_s - max(f.comm_s, 0.0)) for f in ranks}
    out: list[Fact] = []
    for f in ranks:
        others = sorted(own[id(g)] for g in ranks if g is not f)
        mid = others[len(others) // 2]
        if mid > 0 and own[id(f)] >= 1.5 * mid and own[id(f)] - mid >= 0.05:
            out.append(SlowRank(node=f.node, rank=f.rank, origin=f.origin, own_s=own[id(f)], others_s=mid,
                                ratio=own[id(f)] / mid))
    return out


AGGREGATORS: tuple[Callable[[list[Fact]], list[Fact]], ...] = (
    version_skew, nccl_summary, topo_summary, rank_lag, rendezvous_endpoint, slow_rank,
    bench_verdicts,         # measurements against expectations (doctor/verdicts.py)
    *LAUNCH_AGGREGATORS,    # duplicate ranks, ignored hostfiles of the other launchers (doctor/launch_checks.py)
    ib_summary, hca_check, gid_choice, rail_layout, expected_bandwidth,     # node probes (doctor/aggregate_node.py)
    qp_timeouts,            # ibv_modify_qp timeouts in their context: rails or RoCE GIDs (doctor/aggregate_node.py)
    rdma_present,           # IB/RoCE hardware shown at all: what ib_not_used needs (doctor/aggregate_node.py)
    ud_timeouts,            # UCX endpoint timeouts with the node's RoCE evidence (doctor/aggregate_node.py)
    node_skew, slow_links, stragglers, busbw_check, pcie_summary, job_ib_summary,     # whole job (doctor/aggregate_cluster.py)
    flight_recorder, stack_outliers, inspector_lag,    # Flight Recorder, py-spy, NCCL Inspector: who diverged (aggregate_flight_recorder.py)
    trace_job, trace_skew,          # profiler traces of several ranks: exposed communication, stragglers, absent ranks
    *HOST_AGGREGATORS,      # MTU across nodes, two interfaces in one subnet, firmware across nodes (doctor/aggregate_host.py)
    *LAUNCH_ENV_AGGREGATORS,    # an NCCL_SOCKET_IFNAME NCCL never used, one NVIDIA wheel for two CUDA majors (aggregate_launch.py)
    known_bugs,             # versions in a documented bug's range with its symptom line (rules/data/known_bugs.yaml)
    gpu0_excess,            # GPU 0 holding more than every other GPU of one snapshot (doctor/aggregate_gpu_memory.py)
    init_unfinished,        # NCCL output that stops inside communicator init, nothing after it (doctor/aggregate_nccl.py)
    duplicate_gpus,         # two ranks of one communicator on one host's GPU, from NCCL's init lines (aggregate_nccl.py)
    coll_mismatch,          # NCCL COLL lines: processes calling different collectives at one opCount (doctor/aggregate_coll.py)
)


def aggregate(facts: list[Fact]) -> list[Fact]:
    """facts plus every derived fact (a run that recorded its success first sets its failure signs aside)."""
    facts = survived(facts)
    derived: list[Fact] = []
    for step in AGGREGATORS:
        derived.extend(step(facts))
    return facts + derived
