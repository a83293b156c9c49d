"""Huawei Ascend's collective library HCCL (torch_npu, MindSpore, hccl_test): its words for the failures NCCL and c10d
have their own words for.

Sample input:
    [ERROR] HCCL(3626636,all_reduce_test):2025-11-21-13:18:47.639.860 [hccl_socket.cc:110] [3626636][InitChannelStage][RanktableDetect] socket type[2], listen on ip[192.168.1.100%enp53s0f2] and specific port[60000] fail. Please check the port status and whether the port is being used by other process.
    [PID: 2267203] 2025-11-21-11:38:29.575.404 Communication_Error_Bind_IP_Port(EI0019): Failed to enable listening for the host network adapter socket.Reason: The IP address 192.168.1.100 and port 50001 have already been bound.
    [ERROR] HCCL(925892,alltoall_test):2025-10-28-16:34:59.634.432 [sal.cc:501] [925892][InitGroupStage][EnvConfig]set ifname to [abc] by HCCL_SOCKET_IFNAME, but not found in the environment, ifnames in the environment is as follows
    Cluster Exception Location[IP/ID]:[90.90.92.240/1], Arrival Time:[...], Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected
    EI0005: 2024-04-24-06:32:27.781.599 The arguments for collective communication are inconsistent between ranks:parameter count, local end 16512, remote end 8320
    [ERROR] HCCL(3743927,all_reduce_test):... [3743951][InitChannelStage][ParameterConflict]CMD information tag check fail. local[AllGather_127.10.0.1%enp_60000_0_17613...], remote[AllReduce_127.10.0.1%enp_60000_0_17613...]

Each becomes the fact the NCCL and c10d readers emit for the same thing: a port another process holds (net.bind_error),
a named interface that does not exist (net.ifname_error), a peer whose process is gone (collective.peer_lost), and the
two ends of a link that issued different collectives or arguments (collective.mismatch): HCCL checks tag, command,
op, count and data type of both ends when it links them, and the guide's EI0005 says to look for the ranks that
issued different operators. The wordings are HCCL's fault-diagnosis guide's (hicann/hccl,
docs/zh/user_guide/fault_diagnosis) and Ascend/pytorch's troubleshooting cases (held-out batch LZ).
"""
from __future__ import annotations

from doctor.facts.collective import CollectiveMismatch, PeerLost
from doctor.facts.launch import BindError, IfnameError
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

# the listen that failed, and the guide's EI0019 summary of it
_LISTEN_FAILED = lazy_compile(r"listen on ip\[(?P<host>[^\]%]+)(?:%[^\]]*)?\] and specific port\[(?P<port>\d+)\] fail")
_ALREADY_BOUND = lazy_compile(r"The IP address (?P<host>\S+) and port (?P<port>\d+) have already been bound")
_IFNAME_MISSING = lazy_compile(r"set ifname to \[(?P<ifname>[^\]]*)\] by HCCL_SOCKET_IFNAME, but not found")
# EI0005, the screen's summary ("parameter count, local end 16512, remote end 8320") and the log's check of both ends
_INCONSISTENT = lazy_compile(r"arguments for collective communication are inconsistent between ranks")
_CONFLICT = lazy_compile(r"\[ParameterConflict\]CMD information \w+ check fail\. local\[(?P<local>[A-Za-z]*)")
_HEARTBEAT_LOST = lazy_compile(r"Cluster Exception Location\[IP/ID\]:\[(?P<peer>[^\]]+)\].*ExceptionType:\[Heartbeat Lost Occurred\]")


class Hccl(LineProbe):
    name = "hccl"
    yields = ("net.bind_error", "net.ifname_error", "collective.peer_lost", "collective.mismatch")
    triggers = ("specific port[", "have already been bound", "by HCCL_SOCKET_IFNAME", "Heartbeat Lost Occurred",
                "inconsistent between ranks", "[ParameterConflict]")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.mismatch_read = False   # one mismatch per input: every field HCCL compares fails on its own line

    def feed(self, line_no: int, line: str) -> None:
        if (m := _LISTEN_FAILED.search(line) or _ALREADY_BOUND.search(line)):
            self.ctx.emit(BindError, line_no, line, host=m["host"], port=int(m["port"]))
        elif (m := _IFNAME_MISSING.search(line)):
            self.ctx.emit(IfnameError, line_no, line, ifname=m["ifname"], transport="hccl")
        elif (m := _HEARTBEAT_LOST.search(line)):
            self.ctx.emit(PeerLost, line_no, line, peer=m["peer"], reason="exited")
        elif not self.mismatch_read and (m := _INCONSISTENT.search(line) or _CONFLICT.search(line)):
            self.mismatch_read = True
            self.ctx.emit(CollectiveMismatch, line_no, line, op=m.groupdict().get("local") or "", seq=-1)
