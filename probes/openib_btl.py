"""Open MPI's openib BTL (1.x-4.x): the InfiniBand events and failed work completions it reports.

An asynchronous event of the HCA comes as a help text, its event on a line of its own; a failed work completion
as one line from handle_wc, whose status is libibverbs' (IBV_WC_RETRY_EXC_ERR is status number 12, "RETRY
EXCEEDED ERROR"; the receiver-not-ready one is 13): the two read here. Old releases wrap the handle_wc line after
"to:", so the status is read from the line that holds it.

Sample input:
    The OpenFabrics stack has reported a network error event.  Open MPI
    will try to continue, but your job may end up failing.
      Error number:      10 (IBV_EVENT_PORT_ERR)
    [[718,1],20][btl_openib_component.c:2902:handle_wc] from node-0-22.local to: node-0-2 error polling LP CQ with
    status RETRY EXCEEDED ERROR status number 12 for wr_id 102543232 opcode 0  vendor error 129 qp_idx 0
"""
from __future__ import annotations

from doctor.facts.nccl import CallFailed, IbEvent
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_EVENT = lazy_compile(r"^\s*Error number:\s*\d+\s*\((?P<event>IBV_EVENT_[A-Z_]+)\)")
_STATUS = lazy_compile(r"\bstatus number (?P<n>\d+)\b")
# Only the statuses of a path that lost its packets: 12 (transport retries) and 13 (receiver-not-ready retries). Open
# MPI 1.2 names status 4 (IBV_WC_LOC_PROT_ERR) "LOCAL PROTOCOL ERROR"; in its threads that was a bug of the BTL (devel
# 2007/12/2732, users 2007/10/4346: 32-bit builds, threads), not the GPU-NIC path a protection error means to NCCL
# (IB140), so other statuses stay error lines for the report.
RETRIES_EXCEEDED = ("12", "13")
# the events that say the port left ACTIVE (IBV_EVENT_PORT_ACTIVE is it coming back, LID/GID/SM changes are not downs)
PORT_DOWN_EVENTS = ("IBV_EVENT_PORT_ERR",)


class OpenibBtl(LineProbe):
    name = "openib_btl"
    yields = ("nccl.ib_event", "sys.call_failed")
    triggers = ("Error number:", "status number")

    def feed(self, line_no: int, line: str) -> None:
        if "IBV_EVENT_" in line and (m := _EVENT.match(line)):
            self.ctx.emit(IbEvent, line_no, line, hca="", event=m["event"], port_down=m["event"] in PORT_DOWN_EVENTS)
        elif "CQ with status" in line and (m := _STATUS.search(line)) and m["n"] in RETRIES_EXCEEDED:
            self.ctx.emit(CallFailed, line_no, line, call="ibv_poll_cq", errno=f"IBV_WC_{m['n']}", resource="",
                          roce=False)
