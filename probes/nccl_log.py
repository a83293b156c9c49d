"""NCCL_DEBUG=INFO/WARN output, NCCL 2.4 to 2.30 wording.

Sample input:
    node1:2228637:2230195 [3] NCCL INFO Bootstrap : Using [0]ens5:172.31.0.137<0> [1]veth75fa783:fe80::1%veth75fa783<0>
    node1:2228637:2230195 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB ens5:172.31.0.137<0>
    node1:2228637:2230195 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
    node1:2228637:2230195 [3] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA
    node1:2228637:2230195 [3] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC
    NCCL version 2.18.5+cuda12.1
"""
from __future__ import annotations

import re
from collections import defaultdict

from doctor.facts.env import PackageVersion
from doctor.facts.launch import IfnameError, Interface
from doctor.facts.nccl import (DeviceLimit, GdrState, IbUnavailable, NcclChannel, NcclHca, NcclLog, NcclLogEnd, NcclNet,
                               NcclVersion)
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import address_class, version_num, virtual_interface, who
from doctor.probing.regex import lazy_compile

_VERSION = lazy_compile(r"NCCL version:? ?(?P<v>\d+\.\d+\.\d+)(?:\+cuda(?P<cuda>[\d.]+))?")
_IFACES = lazy_compile(r"(?<![\w.\-@])(?:\[\d+\])?(?P<name>[\w.\-@]+):(?P<addr>[0-9a-fA-F:.]{1,64}(?:%[\w.\-]+)?)<\d+>")
# the interface of a line whose address the poster blanked out ("[0]ib0.<ip>", "eno1:avahi:xxx.xxx.xxx.xxx<0>",
# "eth0:<IP><0>"): the name still says which NIC NCCL picked; the address is left unknown
_IFACE_REDACTED = lazy_compile(r": Using (?:\[\d+\])?(?P<name>[A-Za-z][\w\-@]*?)[:.](?:\w+:)?(?P<addr><[A-Za-z ]+>|[xX*]{1,3}(?:\.[xX*]{1,3}){3})")
_USING_NET = lazy_compile(r"Using (?:network|internal Network) (?P<net>[\w ./\-]+?)\s*$")   # 2.3/2.4: "Using internal Network IB"
_NET_USING = lazy_compile(r"NET/(?P<net>IB|Socket|OFI|AWS Libfabric|\w+)\s*: Using \[")
_GDR_HCA = lazy_compile(r"GPU Direct RDMA (?P<state>Enabled|Disabled) for HCA \d+ '(?P<hca>[^']+)'")
_IB_DISABLE = lazy_compile(r"NCCL_IB_DISABLE set by environment to (?P<v>\S+)")
_NNODES = lazy_compile(r"\bnNodes (?P<n>\d+)")
# aws-ofi-nccl settled on a libfabric provider that is no RDMA device: "NET/OFI Selected Provider is tcp (found 1 nics)",
# "... is tcp;ofi_rxm", "... is sockets": libfabric offered no efa provider here (aws-ofi-nccl#803: EFA devices not
# passed into the container), and the plugin moves NCCL's traffic over TCP
_OFI_TCP = lazy_compile(r"NET/OFI Selected [Pp]rovider is (?:tcp|sockets|udp)\b")
_HCA = lazy_compile(r"\[\d+\] ?(?P<name>[\w\-]+):(?P<port>\d+)/(?P<ll>IB|RoCE)(?P<sharp>/SHARP)?")   # 2.3: "[0] mlx5_0:1/IB"
_CUDA_DRIVER = lazy_compile(r"cudaDriverVersion (?P<v>\d+)")
_SHMEM_LIMIT = lazy_compile(r"ncclMaxSharedMem (?P<need>\d+) exceeds device/fn maxSharedMem (?P<have>\d+)")
# NCCL found no IP interface to use: 2.4-2.7 "NET/Socket : 0 interfaces found" then "NET/Socket : no interface found",
# later "Bootstrap : no socket interface found" / "No usable listening interface found"
_NO_INTERFACE = lazy_compile(r"No usable listening interface|no socket interface found|NET/Socket : no interface found"
                             r"|NET/Socket : 0 interfaces found"
                             r"|Socket creation failed : Address family not supported", re.I)   # NCCL <= 2.4: no address to use
_CHANNEL = lazy_compile(r"(?:(?:Channel|Ring) \d+(?:/\d+)? : |^\s*\d+\[[0-9a-fA-F]+\] -> \d+\[[0-9a-fA-F]+\] )"   # a pasted connection line may lack its prefix
                        r".* via (?P<tr>(?:NET/[\w ]+?|P2P|SHM|CollNet|NVLS)[\w/ ]*?)\s*(?:comm|$)")

# NCCL 2.2 and before printed the level without "NCCL": 'host:24:201 [0] INFO NET : Using interface ib0:...',
# 'host:24:201 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]'. Such lines count when one of the
# triggers below brings them (NET/, libibverbs, "Using internal Network"...); a trigger on "] INFO " alone would feed every line
# of an application log in that format to this probe (9x slower on 300k lines).
_OLD_LEVEL = lazy_compile(r"^\S+:\d+:\d+ \[\d+\] (?:[\w/.\-]+:\d+ )?(?:INFO|WARN) ")

# How far NCCL's init got, in order: reading the machine's topology, computing rings/trees, connecting the channels,
# the communicator complete, collectives running. A stage is known only from a line that belongs to it.
STAGES = ("topology", "graph", "connect", "complete", "running")
_STAGE_SIGNS = tuple((STAGES.index(name), sign) for name, sign in (     # furthest stage first
    ("running", lazy_compile(r"\bopCount [0-9a-f]+\b")),
    # launch mode: once all are up; NCCL >= 2.22's "Init timings: rank 5 nranks 8 total 2.46 (...)" (2.27+: "Init timings
    # - ncclCommInitRankConfig: ...") is printed once the communicator is up, beside or instead of Init COMPLETE
    ("complete", lazy_compile(r"Init COMPLETE|\binit done\b|Launch mode (?:Parallel|Group)|Init timings\b.*\btotal [\d.]+")),
    ("connect", lazy_compile(r"Connected all (?:rings|trees)|\bvia (?:P2P|SHM|NET|CollNet|NVLS)")),
    ("graph", lazy_compile(r"\bPattern \d+, crossNic|\b(?:Ring|Tree) \d+ : |Channel \d+/\d+ :|\bTrees \[|Setting affinity for GPU")),
    ("topology", lazy_compile(r"Loading (?:topology file|unnamed topology)|Topology detection|\bAttached to |=== System : ")),
))


def _stage_after(line: str, reached: int) -> int:
    """The index in STAGES of the furthest stage this line shows beyond `reached`, else `reached`: once a log has shown
    a stage, its later lines are searched only for the stages after it (none once collectives run)."""
    for index, sign in _STAGE_SIGNS:
        if index <= reached:
            return reached
        if sign.search(line):
            return index
    return reached


def _transport(raw: str) -> tuple[str, bool, bool]:
    parts = raw.strip().split("/")
    gdr = "GDRDMA" in parts
    if parts[0] == "NET":
        return "/".join(parts[:2]), gdr, True
    return "/".join(parts[:2]) if len(parts) > 1 else parts[0], gdr, False


class NcclLogProbe(LineProbe):
    name = "nccl_log"
    yields = ("nccl.version", "nccl.hca", "pkg.version", "nccl.net", "nccl.ib_unavailable", "nccl.gdr", "nccl.channel", "net.interface", "nccl.log", "nccl.log_end",
              "net.ifname_error", "nccl.device_limit")
    triggers = ("NCCL INFO", "NCCL version", "cudaDriverVersion", "NET : Using interface", "NET/IB", "NET/Socket", "Using network", "Bootstrap", "NET/Plugin", "NET/OFI", "Using internal Network",
                "libibverbs", "userspace device-specific driver", "via NET", "via P2P", "via SHM", "GPU Direct RDMA", "No usable listening interface",
                "no socket interface found", "No socket interface found", "no interface found", "interfaces found",
                "Socket creation failed : Address family")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.info_lines: dict[str, int] = defaultdict(int)
        self.net_init: dict[str, bool] = defaultdict(bool)
        self.first_line: dict[str, tuple[int, str]] = {}
        self.last_line: dict[str, tuple[int, str]] = {}
        self.nodes: dict[str, int] = defaultdict(lambda: -1)
        self.stage: dict[str, int] = defaultdict(lambda: -1)   # index into STAGES of the furthest stage seen

    def feed(self, line_no: int, line: str) -> None:
        node = self._count(line_no, line)
        m = _VERSION.search(line) if "version" in line else None     # each regex only where its words are: this
        if m:
            self.ctx.emit(NcclVersion, line_no, line, version=m["v"], version_num=version_num(m["v"]), cuda=m["cuda"] or "")
        if "Bootstrap" in line or "NET/Socket" in line or "NET : Using interface" in line or "Socket creation" in line:
            self._interfaces(line_no, line)
        elif "; OOB " in line:      # NET/IB's out-of-band interface: the socket interface NCCL picked for IB setup
            self._interfaces(line_no, line, line.split("; OOB ", 1)[1])
        self._network(line_no, line, node)
        if "NET/IB : Using [" in line or "NET/IB: Using [" in line or "NET/IB: [" in line:
            for h in _HCA.finditer(line):
                self.ctx.emit(NcclHca, line_no, line, name=h["name"], port=int(h["port"]), link_layer=h["ll"],
                              sharp=bool(h["sharp"]))
        m = _CUDA_DRIVER.search(line) if "cudaDriverVersion" in line else None   # probe reads every NCCL line
        if m:
            v = int(m["v"])
            text = f"{v // 1000}.{v % 1000 // 10}"
            self.ctx.emit(PackageVersion, line_no, line, name="cuda_driver_api", version=text,
                          version_num=(v // 1000) * 10000 + (v % 1000 // 10) * 100)
        m = _GDR_HCA.search(line) if "GPU Direct RDMA" in line else None
        if m:
            self.ctx.emit(GdrState, line_no, line, hca=m["hca"], enabled=m["state"] == "Enabled")
        m = _SHMEM_LIMIT.search(line) if "ncclMaxSharedMem" in line else None
        if m:
            self.ctx.emit(DeviceLimit, line_no, line, resource="shared_memory", needed=int(m["need"]),
                          available=int(m["have"]))
        m = _CHANNEL.search(line) if " via " in line else None
        if m:
            transport, gdr, remote = _transport(m["tr"])
            self.ctx.emit(NcclChannel, line_no, line, transport=transport, gdr=gdr, remote=remote)

    def _count(self, line_no: int, line: str) -> str:
        fact_node = self.ctx.node
        if "NCCL INFO" in line or "NCCL WARN" in line or _OLD_LEVEL.match(line):
            fact_node = who(line, self.ctx.node).node
            self.info_lines[fact_node] += 1
            self.first_line.setdefault(fact_node, (line_no, line))
            self.last_line[fact_node] = (line_no, line)
            if any(k in line for k in ("NET/Plugin", "Bootstrap", "NET/IB", "NET/Socket", "Using network", "NET/OFI")):
                self.net_init[fact_node] = True
            m = _NNODES.search(line) if "nNodes" in line else None
            if m:
                self.nodes[fact_node] = max(self.nodes[fact_node], int(m["n"]))
            self.stage[fact_node] = _stage_after(line, self.stage[fact_node])
        return fact_node

    def _interfaces(self, line_no: int, line: str, part: str = "") -> None:
        used_by = "nccl_bootstrap" if "Bootstrap" in line else "nccl_socket"
        found = False
        for m in _IFACES.finditer(part or line):
            found = True
            loopback, link_local = address_class(m["addr"])
            self.ctx.emit(Interface, line_no, line, name=m["name"], address=m["addr"], used_by=used_by,
                          loopback=loopback, link_local=link_local, virtual=virtual_interface(m["name"]))
        if not found and (m := _IFACE_REDACTED.search(part or line)):
            self.ctx.emit(Interface, line_no, line, name=m["name"], address="", used_by=used_by,
                          loopback=False, link_local=False, virtual=virtual_interface(m["name"]))
        if _NO_INTERFACE.search(line):
            self.ctx.emit(IfnameError, line_no, line, ifname="", transport="nccl")

    def _network(self, line_no: int, line: str, node: str) -> None:
        m = (_USING_NET.search(line) or _NET_USING.search(line)) if "Using" in line else None
        if m:
            net = m["net"].strip()
            self.ctx.emit(NcclNet, line_no, line, net="IB" if net.startswith("IB") else net)
        if "No device found" in line and "NET/IB : No device found" in line.replace("NET/IB: ", "NET/IB : "):
            self.ctx.emit(IbUnavailable, line_no, line, reason="no_device")
        elif "no userspace device-specific driver found" in line:   # libibverbs: the HCA's provider (libmlx5...) is missing
            self.ctx.emit(IbUnavailable, line_no, line, reason="no_verbs_provider")
        elif "libibverbs" in line and ("Failed to open" in line or "not found" in line or "Could not" in line):
            self.ctx.emit(IbUnavailable, line_no, line, reason="no_verbs_lib")
        elif "NET/OFI" in line and ("fi_getinfo() call failed" in line or "Unable to find a protocol that worked" in line
                                    or "Could not find any optimal provider" in line   # aws-ofi-nccl before 1.0 (2019)
                                    or _OFI_TCP.search(line)):
            self.ctx.emit(IbUnavailable, line_no, line, reason="no_ofi_provider")   # aws-ofi-nccl found no EFA device
        elif "NCCL_IB_DISABLE" in line and (m := _IB_DISABLE.search(line)) and m["v"].rstrip(".") not in ("0", ""):
            self.ctx.emit(IbUnavailable, line_no, line, reason="disabled_by_env")   # a cut line without the value says nothing

    def finish(self) -> None:
        for node, count in self.info_lines.items():
            n, line = self.first_line[node]
            self.ctx.emit(NcclLog, n, line, node=node, rank=-1, info_lines=count, net_init_seen=self.net_init[node],
                         nodes=self.nodes[node], stage=self._stage_name(node))
            n, line = self.last_line[node]
            self.ctx.emit(NcclLogEnd, n, line, node=node, rank=-1, info_lines=count, stage=self._stage_name(node))

    def _stage_name(self, node: str) -> str:
        return STAGES[self.stage[node]] if self.stage[node] >= 0 else ""
