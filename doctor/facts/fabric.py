"""Facts about a node's fabric: RDMA ports and GIDs, NCCL settings checked against them, rails, expected bandwidth.

(GPU-NIC affinity is topo.nic in doctor/facts/topo.py; TCP reachability is net.reachability in doctor/facts/reachability.py.)
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class IbPort(Fact):
    """One RDMA port. state: ACTIVE | DOWN | INIT | ARMED | ... ; link_layer: InfiniBand | Ethernet (RoCE)."""

    KIND = "ib.port"
    device: str = ""
    port: int = 1
    state: str = ""
    active: bool = False
    phys_state: str = ""           # LINK_UP | DISABLED | POLLING | SLEEP | ...
    rate_gbps: float = -1
    link_layer: str = ""
    roce: bool = False
    netdev: str = ""
    adapter: str = ""              # the physical card: its System image GUID (ports of one card share it)


@fact
class IbGid(Fact):
    """One GID table entry of a port. version: v1 | v2 | ib | '' (tool did not say)."""

    KIND = "ib.gid"
    device: str = ""
    port: int = 1
    index: int = -1
    gid: str = ""
    version: str = ""
    ipv4: str = ""                 # the IPv4 address an IPv4-mapped RoCE GID carries


@fact
class IbSummary(Fact):
    """Per node: how many RDMA ports exist and are active (computed by aggregation)."""

    KIND = "ib.summary"
    ports: int = 0
    active_ports: int = 0
    ib_active: int = 0             # active InfiniBand ports
    roce_active: int = 0           # active RoCE (Ethernet link layer) ports
    devices: str = ""


@fact
class HcaCheck(Fact):
    """One NCCL_IB_HCA entry checked against the ports this node has (computed by aggregation)."""

    KIND = "ib.hca_check"
    entry: str = ""                # the entry as written: mlx5_0:1, =mlx5_1, ...
    setting: str = ""              # the whole NCCL_IB_HCA value
    found: bool = False            # some port matches the entry
    active: bool = False           # some matching port is ACTIVE
    known: str = ""                # the devices this node has


@fact
class GidChoice(Fact):
    """Per active RoCE port with a known GID table: the GID index NCCL will use against the usable ones."""

    KIND = "ib.gid_choice"
    device: str = ""
    port: int = 1
    configured: int = -1           # NCCL_IB_GID_INDEX, -1 when unset
    configured_found: bool = False
    configured_version: str = ""
    configured_ipv4: bool = False
    v2_index: int = -1             # first RoCE v2 GID carrying an IPv4 address, -1 when none


@fact
class RailLayout(Fact):
    """Per node: NICs that sit on a GPU's own PCIe switch (rails) and the NCCL_CROSS_NIC setting (aggregation)."""

    KIND = "ib.rails"
    nics: int = 0
    rails: int = 0
    cross_nic: str = ""            # NCCL_CROSS_NIC value, '' when unset


@fact
class QpTimeout(Fact):
    """An ibv_modify_qp ETIMEDOUT with what the node says around it (aggregation): the signs that tell a cross-rail
    pairing (several NICs, NCCL_CROSS_NIC, GIDs in different subnets) from a RoCE GID fault (link layer, GID kinds)."""

    KIND = "ib.qp_timeout"
    device: str = ""               # dev:port of the warning
    gid_index: int = -1
    roce: bool = False             # RoCE evidence: IPv4-mapped GIDs, NET/IB .../RoCE, an Ethernet port in ibv_devinfo
    nics: int = 0                  # RDMA NICs the node has or NCCL uses (0 unknown)
    cross_nic: str = ""            # NCCL_CROSS_NIC, '' when unset
    gid_pair: str = ""             # same_subnet | cross_subnet (both IPv4-mapped) | mixed (one IPv4-mapped, one not) | ''
    gid_wrong: str = ""            # why the GID looks wrong, '' when nothing says so


@fact
class TopoAffinity(Fact):
    """The CPU cores and NUMA node a GPU is close to."""

    KIND = "topo.affinity"
    gpu: int = -1
    cpus: str = ""
    numa: int = -1


@fact
class ExpectedBandwidth(Fact):
    """What a healthy node of this link class reaches between a and b, one direction, in GB/s (aggregation)."""

    KIND = "topo.expected"
    a: str = ""                    # GPU0
    b: str = ""                    # GPU1 or a NIC (mlx5_0)
    link: str = ""                 # NV18, PIX, SYS, ...
    link_class: str = ""           # nvlink4 x18, pcie gen4 x16, ib 400G, ...
    link_gbs: float = -1           # raw link rate
    expected_gbs: float = -1       # what a bandwidth test reaches on a healthy node
    basis: str = ""


@fact
class RdmaPresent(Fact):
    """The input shows InfiniBand/RoCE hardware exists for the job (computed by aggregation), whatever NCCL used."""

    KIND = "ib.present"
    source: str = ""               # rdma_port | nccl_hca | nccl_ib_setting | container_device | ipoib_interface
    detail: str = ""               # the device, setting or interface that shows it


@fact
class RdmaNoDevice(Fact):
    """An RDMA tool run on the node found no RDMA device in the OS (ibstatus' 'sys files not found
    (/sys/class/infiniband/*/ports)'): no driver brought an HCA up there."""

    KIND = "rdma.no_device"
    tool: str = ""                 # the tool that said so: ibstatus


@fact
class UcxFatal(Fact):
    """A UCX transport's fatal line (`ud_iface.c:781  Fatal: transport error: Endpoint timeout`): the source file
    names the transport (ud_*, rc_*, dc_*), timeout whether the message is a timeout."""

    KIND = "ucx.fatal"
    transport: str = ""            # ud | rc | dc | '' (the file did not say)
    message: str = ""
    timeout: bool = False


@fact
class EndpointTimeout(Fact):
    """A UCX endpoint that timed out, with the node's RoCE evidence (aggregation): on RoCE an unreachable peer
    endpoint at connect time is first a GID question; on InfiniBand it is not."""

    KIND = "ib.endpoint_timeout"
    transport: str = ""
    roce: bool = False
    roce_sign: str = ""            # what shows RoCE: an Ethernet port, NCCL's /RoCE HCA, an IPv4-mapped GID, a RoCE-only setting
