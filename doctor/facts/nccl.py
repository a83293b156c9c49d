"""Facts read from NCCL debug output and NCCL errors surfaced by frameworks."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class NcclVersion(Fact):
    KIND = "nccl.version"
    version: str = ""
    version_num: int = 0           # 2.18.5 -> 21805
    cuda: str = ""


@fact
class NcclError(Fact):
    """An NCCL result code as reported by a framework. code: system|internal|invalid_usage|remote|cuda|timeout|other."""

    KIND = "nccl.error"
    code: str = "other"
    version_num: int = 0
    detail: str = ""


@fact
class NcclWarn(Fact):
    """A WARN line of NCCL_DEBUG output."""

    KIND = "nccl.warn"
    src: str = ""                  # NCCL source file:line
    message: str = ""


@fact
class CallFailed(Fact):
    """A system or library call failed. errno is symbolic (ENOSPC, EACCES, ENOMEM, ETIMEDOUT, ENODEV...)."""

    KIND = "sys.call_failed"
    call: str = ""                 # shm_open | shm_alloc | shm_attach | shm_region_open | ibv_reg_mr | ibv_modify_qp | ibv_create_qp | connect | dlopen
    errno: str = ""
    resource: str = ""             # /dev/shm, the HCA, the library
    gid_index: int = -1            # for ibv_modify_qp on RoCE
    roce: bool = False             # the GIDs involved are RoCE (IPv4-mapped / Ethernet)
    local_gid: str = ""            # ibv_modify_qp: the GIDs NCCL printed (2.19+)
    remote_gid: str = ""


@fact
class NcclNet(Fact):
    """The network transport NCCL selected. net: IB | Socket | <plugin name>."""

    KIND = "nccl.net"
    net: str = ""


@fact
class IbUnavailable(Fact):
    """NCCL could not use InfiniBand/RoCE. reason: no_device | no_verbs_lib | no_verbs_provider | disabled_by_env |
    no_ofi_provider (the AWS OFI plugin's libfabric found no EFA device: fi_getinfo failed)."""

    KIND = "nccl.ib_unavailable"
    reason: str = ""


@fact
class GdrState(Fact):
    """GPUDirect RDMA per HCA (from NET/IB lines) or per connection (the /GDRDMA suffix)."""

    KIND = "nccl.gdr"
    hca: str = ""
    enabled: bool = False


@fact
class NcclChannel(Fact):
    """One distinct connection type a rank set up. transport: P2P/IPC, P2P/CUMEM, SHM, NET/IB, NET/Socket..."""

    KIND = "nccl.channel"
    transport: str = ""
    gdr: bool = False
    remote: bool = False           # goes over the network


@fact
class NcclSummary(Fact):
    """Per node: what the NCCL log of that node shows overall (computed by aggregation)."""

    KIND = "nccl.summary"
    info_lines: int = 0
    ib_used: bool = False
    socket_used: bool = False
    gdr_seen: bool = False
    net_channels: int = 0
    warn_count: int = 0
    ib_configured: bool = False    # hardware or the user says IB is there: RDMA ports, NET/IB Using, NCCL_IB_*, /dev/infiniband
    nodes: int = -1                # nodes in the job as NCCL saw them (nNodes, remote channels, hosts); -1 unknown


@fact
class HandleCorrupt(Fact):
    """A peer's connection handle decoded as garbage (e.g. address family 0): the peers disagree on layout."""

    KIND = "nccl.handle_corrupt"
    detail: str = ""


@fact
class NcclLog(Fact):
    """Per node and input: how much NCCL_DEBUG output there was and whether it covers network init."""

    KIND = "nccl.log"
    info_lines: int = 0
    net_init_seen: bool = False    # NET/Plugin, Bootstrap, NET/IB or NET/Socket lines present
    nodes: int = -1                # NCCL's own "nNodes N" (2.1x+), -1 when the log does not say
    stage: str = ""                # furthest init stage its lines show: topology | graph | connect | complete | running;
                                   # "" when no line names one (bootstrap and network lines alone)


@fact
class NcclLogEnd(Fact):
    """Per node and input: the last NCCL line of that node, and how far NCCL's init had got by then."""

    KIND = "nccl.log_end"
    info_lines: int = 0
    stage: str = ""                # as NcclLog.stage


@fact
class NcclInitUnfinished(Fact):
    """NCCL's output stops before its communicator was complete, and nothing after it says why: no error line, no
    training step, no benchmark figure (computed by aggregation). Where a job hangs, this is where."""

    KIND = "nccl.init_unfinished"
    stage: str = ""                # the furthest init stage reached ("" when only bootstrap and network lines came)
    info_lines: int = 0
    nodes: int = -1                # nodes of the job as NCCL saw them; -1 when nothing says


@fact
class NcclCommRank(Fact):
    """One rank of one NCCL communicator as its init line names it ("ncclCommInitRank comm 0x.. rank 1 nranks 2
    cudaDev 0 nvmlDev 0 busId 100000 commId 0x.. - Init START", or "... - Init COMPLETE")."""

    KIND = "nccl.comm_rank"
    comm_id: str = ""              # the communicator's unique id (NCCL >= 2.12 prints it); "" when the line has none
    comm_rank: int = -1            # the rank within that communicator
    nranks: int = -1
    bus_id: str = ""               # the PCI bus id of the GPU this rank runs on, as NCCL prints it (hex, no domain)


@fact
class NcclHca(Fact):
    """An HCA port NCCL's IB transport is using (NET/IB : Using [0]mlx5_0:1/IB ...)."""

    KIND = "nccl.hca"
    name: str = ""
    port: int = -1
    link_layer: str = ""           # IB | RoCE
    sharp: bool = False


@fact
class IbEvent(Fact):
    """An asynchronous event NCCL's IB transport received (port error, LID change, device fatal)."""

    KIND = "nccl.ib_event"
    hca: str = ""
    event: str = ""
    port_down: bool = False


@fact
class DeviceLimit(Fact):
    """NCCL found that its kernels need more of a device resource than the GPU offers
    ("ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856"): the kernels cannot launch as built."""

    KIND = "nccl.device_limit"
    resource: str = ""             # shared_memory
    needed: int = -1
    available: int = -1
