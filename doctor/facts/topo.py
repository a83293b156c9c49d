"""Facts about the node's interconnect: GPU-GPU links, NVLink state, PCIe, measured bandwidth."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class TopoLink(Fact):
    """One GPU pair from `nvidia-smi topo -m`. link: NV#, PIX, PXB, PHB, NODE, SYS."""

    KIND = "topo.link"
    gpu_a: int = -1
    gpu_b: int = -1
    link: str = ""
    path: str = ""                 # nvlink | pcie_switch | host_bridge | numa | cross_socket
    nvlinks: int = 0


@fact
class TopoNic(Fact):
    """One GPU-NIC pair from `nvidia-smi topo -m` (NIC affinity). nic: the legend's device name (mlx5_0) or NIC#."""

    KIND = "topo.nic"
    gpu: int = -1
    nic: str = ""
    link: str = ""
    path: str = ""                 # nvlink | pcie_switch | host_bridge | numa | cross_socket


@fact
class TopoSummary(Fact):
    """Per node: how the GPU pairs connect (computed by aggregation)."""

    KIND = "topo.summary"
    gpus: int = 0
    pairs: int = 0
    nvlink_pairs: int = 0
    pcie_switch_pairs: int = 0     # PIX / PXB: peer-to-peer over PCIe switches
    host_pairs: int = 0            # PHB / NODE / SYS: through the CPU


@fact
class NvlinkState(Fact):
    """One NVLink of one GPU (nvidia-smi nvlink -s)."""

    KIND = "nvlink.link"
    gpu: int = -1
    link: int = -1
    active: bool = False
    gbs: float = 0


@fact
class CollectiveBench(Fact):
    """A collective benchmark run (nccl-tests): avg bus bandwidth in GB/s, how far it got."""

    KIND = "bench.collective"
    op: str = ""
    nranks: int = -1
    gpus: int = -1
    hosts: int = -1
    avg_busbw: float = -1
    results: int = 0               # result rows printed
    wrong: int = 0
    complete: bool = False         # reached the summary lines
    started: bool = False          # printed its device table / init lines
    failed: bool = False           # printed its own failure ("Test CUDA failure", "Test NCCL failure", "Test failure"): it
                                   # ended on an error, it did not stall
    multi_node: bool = False       # several hosts, or more ranks than GPUs per process group on one node
    summaries: int = 0             # '# Avg bus bandwidth' lines in this one output (one per finished test run)
    summary_spread: float = -1     # (max - min) / max over those summaries; -1 with fewer than two
    back_to_back_summaries: int = 0   # summaries printed with no result row since the previous one (copies ending together)
    copies_together: int = 0          # extra copies of one test side by side: a second header before any result row, or an
                                      # equal summary right after another (a non-MPI build started once per process)


@fact
class P2pPairBandwidth(Fact):
    """One GPU pair of CUDA's p2pBandwidthLatencyTest: unidirectional GB/s with peer access off and on (-1: not printed)."""

    KIND = "p2p.pair"
    gpu_a: int = -1
    gpu_b: int = -1
    peer_access: bool = False      # "Device=a CAN Access Peer Device=b"
    gbps_disabled: float = -1.0    # Unidirectional P2P=Disabled (copies staged through host memory)
    gbps_enabled: float = -1.0     # Unidirectional P2P=Enabled (P2P writes)
    enabled_share: float = -1.0    # gbps_enabled / gbps_disabled; below 1 the direct path is slower than the staged one


@fact
class P2pTest(Fact):
    """The whole p2pBandwidthLatencyTest output (computed by its parser): how far it got and what it measured."""

    KIND = "p2p.test"
    devices: int = 0
    peer_pairs: int = 0            # pairs the driver reports as peer-capable
    measured_pairs: int = 0        # peer-capable pairs with both unidirectional figures
    slower_with_p2p: int = 0       # peer-capable pairs whose P2P-enabled copy runs below half the staged one
    worst_share: float = -1.0      # lowest gbps_enabled / gbps_disabled over peer-capable pairs
    stopped_in: str = ""           # the section whose header is the last thing printed (the run stopped there); '' complete


@fact
class P2pCopyCorrupted(Fact):
    """A tensor printed on one GPU, then the same number of values printed on another GPU right after, all zero (or
    denormal dust) where the first had values: a copy between the two GPUs arrived without its data."""

    KIND = "p2p.copy_corrupted"
    src_device: int = -1
    dst_device: int = -1
    sent: str = ""                 # the values as printed on the source GPU
    arrived: str = ""              # the values as printed on the destination GPU
