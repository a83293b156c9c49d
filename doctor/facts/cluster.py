"""Facts about a whole job: who took part, what the active tests measured, and what differs between nodes.

Gathered by `doctor cluster` on every rank (doctor/cluster/), or derived by doctor/aggregate_cluster.py.
Bandwidths are GB/s (10^9 bytes per second), times seconds, sizes bytes.
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class ClusterRank(Fact):
    """One rank of the job as it reported itself (node = its host name)."""

    KIND = "cluster.rank"
    world_size: int = -1
    local_rank: int = -1
    launcher: str = ""             # torchrun | slurm | env
    backend: str = ""              # the backend of the bandwidth tests: gloo | nccl
    pid: int = -1


@fact
class NodeInfo(Fact):
    """What one node has, as its first local rank saw it."""

    KIND = "cluster.node"
    gpus: int = -1                 # GPUs this node has (-1 unknown)
    gpus_source: str = ""          # torch | /dev/nvidia* | nvml ...
    net_plugin: str = ""           # the NCCL net plugin library found (libnccl-net*.so), '' when none
    rdma_devices: int = -1         # entries of /sys/class/infiniband (-1 unknown)
    address: str = ""              # the address this node uses towards the rendezvous host


@fact
class RendezvousResult(Fact):
    """How joining the job went. outcome: ok | timeout | refused | unresolved | in_use | missing_ranks | failed."""

    KIND = "cluster.rendezvous"
    phase: str = ""                # store | join | process_group
    outcome: str = ""
    host: str = ""                 # the peer this rank had to reach (the store, or a gloo peer)
    port: int = -1
    seconds: float = -1
    joined: int = -1
    expected: int = -1
    missing: str = ""              # ranks that never joined, "2,3"


@fact
class PairReach(Fact):
    """A TCP connect from this node to another node's doctor listener. outcome: ok | refused | timeout | unreachable."""

    KIND = "cluster.reach"
    peer: str = ""                 # the node connected to
    host: str = ""
    port: int = -1
    outcome: str = ""
    reachable: bool = False
    seconds: float = -1


@fact
class BusBandwidth(Fact):
    """One size of a collective bandwidth sweep over the whole job. busbw as nccl-tests defines it."""

    KIND = "cluster.busbw"
    op: str = ""                   # all_reduce | all_gather
    backend: str = ""
    bytes: float = -1
    ranks: int = -1
    nodes: int = -1
    algbw_gbs: float = -1
    busbw_gbs: float = -1
    seconds: float = -1            # per iteration, slowest rank


@fact
class PairBandwidth(Fact):
    """A point-to-point exchange between this node and a peer node (both directions). node < peer by rank order."""

    KIND = "cluster.pair_bw"
    peer: str = ""
    gbs: float = -1
    bytes: float = -1
    seconds: float = -1
    round: int = 0


@fact
class RankTiming(Fact):
    """The same fixed piece of work timed on every rank (best of a few repetitions)."""

    KIND = "cluster.timing"
    work_s: float = -1
    reps: int = 0
    device: str = ""               # cpu | cuda:N
    shared: bool = False           # a CPU rank that did not have a core to itself: CPU timings are not comparable


@fact
class NodeSkew(Fact):
    """A node whose setting or resource differs from the other nodes' (aggregation).
    what: env | version | net_plugin | resource (name: gpus, shm_bytes, memlock_kb, rdma_devices)."""

    KIND = "cluster.skew"
    what: str = ""
    name: str = ""
    value: str = ""                # this node's value ('<unset>' when it has none)
    majority: str = ""             # what most nodes have
    majority_nodes: int = 0
    nodes: int = 0                 # nodes compared
    below: bool = False            # a resource below the majority's (fewer GPUs, a smaller /dev/shm)


@fact
class SlowLink(Fact):
    """A node (scope node) or the link between two nodes (scope link) far slower than the other pairs (aggregation)."""

    KIND = "cluster.slow_link"
    scope: str = ""
    peer: str = ""                 # the other end, for scope link
    gbs: float = -1                # best exchange rate seen through it
    median_gbs: float = -1         # median of the healthy pairs
    ratio: float = -1
    tests: int = 0                 # pair tests it took part in


@fact
class Straggler(Fact):
    """A rank whose fixed work takes much longer than the others' median (aggregation)."""

    KIND = "cluster.straggler"
    work_s: float = -1
    median_s: float = -1
    ratio: float = -1


@fact
class BusbwCheck(Fact):
    """Peak measured bus bandwidth against what was expected (aggregation)."""

    KIND = "cluster.busbw_check"
    op: str = ""
    measured_gbs: float = -1
    expected_gbs: float = -1       # -1 when nothing says what to expect
    ratio: float = -1
    basis: str = ""                # topology | policy | ''
    limited_by: str = ""           # the link that bounds it, when known


@fact
class PcieSummary(Fact):
    """Per node: the weakest GPU PCIe link (aggregation over gpu.pcie facts)."""

    KIND = "cluster.pcie"
    gpus: int = 0
    min_gen: int = -1              # lowest maximum generation a GPU link can reach
    min_width: int = -1            # lowest current lane count


@fact
class JobIbSummary(Fact):
    """Per node: RDMA ports, how many are ACTIVE, and the slowest active rate (aggregation over ib.port facts)."""

    KIND = "cluster.ib"
    ports: int = 0
    active: int = 0
    min_active_gbps: float = -1
