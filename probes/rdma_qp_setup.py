"""Queue-pair and GID setup failures as RDMA tools other than NCCL word them (NCCL's own `Call to ibv_modify_qp
failed` WARN is read by nccl_errors).

perftest (ib_write_bw, ib_read_bw, ib_send_bw ...) prints its connection parameters before it connects: the link
type and GID index of its header, then each side's GID in decimal bytes. When the queue pair cannot reach
ready-to-receive it says 'Failed to modify QP <n> to RTR'. The GIDs are what tell a RoCE GID fault apart: an
all-zero GID is an unset table entry (the port's netdev has no address in this namespace), an fe80 one is
link-local. Mooncake's transfer engine names the GID it could not use: 'GID is NULL' when its automatic selection
found none, 'Failed to query GID <i> on <dev>' and 'Device <dev> GID <i> not available' for an index the port
does not have.

Sample input:
     Link type       : Ethernet
     GID index       : 0
     local address: LID 0000 QPN 0x003b PSN 0xab3a5e RKey 0x015b1a VAddr 0x007f72e9620000
     GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00
    Failed to modify QP 59 to RTR
    E0924 01:29:28.347672  2254 rdma_context.cpp:499] Failed to query GID 0 on mlx5_0/: Invalid argument [22]
    GID is NULL, please check your GID index by specifying MC_GID_INDEX
    CQE ERROR wr_id=3 status=12(transport retry counter exceeded) opcode=1 byte_len=0 vendor_err=0xa qp_num=0x2c10

A work completion that ran out of retries is named by libibverbs' own status string (ibv_wc_status_str), whatever
library prints it: "transport retry counter exceeded" is IBV_WC_RETRY_EXC_ERR (12), "RNR retry counter exceeded"
IBV_WC_RNR_RETRY_EXC_ERR (13); UCX words the first "Transport retry count exceeded". NCCL's own completion WARN is
nccl_errors'.
"""
from __future__ import annotations

import ipaddress

from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.lines import errno_of
from doctor.probing.regex import lazy_compile

_TITLE = lazy_compile(r"\b(?:BW|Latency) Test\s*$")
_DEVICE = lazy_compile(r"Dual-port\s*:.*\bDevice\s*:\s*(?P<dev>\S+)")
_LINK = lazy_compile(r"^\s*Link type\s*:\s*(?P<link>\w+)")
_GID_INDEX = lazy_compile(r"^\s*GID index\s*:\s*(?P<i>\d+)")
_SIDE = lazy_compile(r"^\s*(?P<side>local|remote) address:")
_GID_BYTES = lazy_compile(r"^\s*GID:\s*(?P<b>\d{1,3}(?::\d{1,3}){15})\s*$")
_RTR = lazy_compile(r"Failed to modify QP \S+ to RTR")
_QUERY = lazy_compile(r"Failed to query GID (?P<i>\d+) on (?P<dev>[\w.-]+)|Device (?P<dev2>\S+) GID (?P<i2>\d+) not available")
_NULL = "GID is NULL"
_WC_RETRIES = lazy_compile(r"(?i)\b(?P<kind>transport|RNR) retry count(?:er)? exceeded")


def decimal_gid(text: str) -> str:
    """perftest's '00:00:...:255:255:10:12:0:5' (16 decimal bytes) as an IPv6 address ('::ffff:10.12.0.5'), '' if not one."""
    octets = [int(x) for x in text.split(":")]
    if len(octets) != 16 or any(o > 255 for o in octets):
        return ""
    address = ipaddress.IPv6Address(bytes(octets))
    return f"::ffff:{address.ipv4_mapped}" if address.ipv4_mapped else address.compressed


class RdmaQpSetup(LineProbe):
    name = "rdma_qp_setup"
    yields = ("sys.call_failed",)
    triggers = ("BW Test", "Latency Test", "Dual-port", "Link type", "GID", "address:", "Failed to modify QP",
                "retry counter exceeded", "retry count exceeded", "Retry count exceeded")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._reset()

    def _reset(self) -> None:
        self.device, self.link, self.index, self.side = "", "", -1, ""
        self.gids: dict[str, str] = {}

    def feed(self, line_no: int, line: str) -> None:
        # each regex only where its words are: NCCL's many 'qpn ... GID' lines reach this probe too
        if "Test" in line and _TITLE.search(line):
            self._reset()
        elif "Dual-port" in line and (m := _DEVICE.search(line)):
            self.device = m["dev"]
        elif "Link type" in line and (m := _LINK.match(line)):
            self.link = m["link"]
        elif "GID index" in line and (m := _GID_INDEX.match(line)):
            self.index = int(m["i"])
        elif "address:" in line and (m := _SIDE.match(line)):
            self.side = m["side"]
        elif self.side and "GID:" in line and (m := _GID_BYTES.match(line)):
            self.gids[self.side] = decimal_gid(m["b"])
        elif "to RTR" in line and _RTR.search(line):
            self.ctx.emit(CallFailed, line_no, line, call="ibv_modify_qp", errno=errno_of(line), resource=self.device,
                          gid_index=self.index, roce=self.link == "Ethernet", local_gid=self.gids.get("local", ""),
                          remote_gid=self.gids.get("remote", ""))
        elif "GID" in line and (m := _QUERY.search(line)):
            self.ctx.emit(CallFailed, line_no, line, call="ibv_query_gid", errno=errno_of(line),
                          resource=m["dev"] or m["dev2"], gid_index=int(m["i"] or m["i2"]))
        elif _NULL in line:
            self.ctx.emit(CallFailed, line_no, line, call="ibv_query_gid", errno="", resource="")
        elif "xceeded" in line and "NCCL" not in line and (m := _WC_RETRIES.search(line)):
            self.ctx.emit(CallFailed, line_no, line, call="ibv_poll_cq", resource="",
                          errno="IBV_WC_12" if m["kind"].lower() == "transport" else "IBV_WC_13",
                          roce="RoCE" in line or self.link == "Ethernet")
