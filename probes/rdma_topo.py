"""NVIDIA's `rdma_topo check` (DGX Station / GB300 Data Direct playbooks): its verdict on each bridge's ACS setting.

The tool compares each PCIe bridge's ACS Control bits on the GPU-NIC path with the pattern GPU-memory RDMA needs and
says FAIL or OK; a FAIL is a bridge whose ACS redirects (or validates) the peer requests that path needs. Only its
verdict is read: the pattern it wants keeps some bits on, so the bits alone would not tell.

Sample input (NVIDIA/dgx-spark-playbooks, station-connect-two-stations, "Example failure before Step 11"):
    FAIL ACS for cx_switch 0009:02:00.0 0011101 != xx110x1, 0x1d != 0x19
    OK ACS for cx_switch 0009:02:00.0 has correct values 0011001 = xx110x1
"""
from __future__ import annotations

from doctor.facts.hardware import PciAcs
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile
from probes.acs_registers import decode

_VERDICT = lazy_compile(r"^\s*(?P<verdict>FAIL|OK) ACS for (?P<role>\w+) (?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:"
                        r"[0-9a-fA-F]{2}\.[0-7])(?: has correct values)? (?P<bits>[01]{7})\b")


class RdmaTopo(DocumentProbe):
    """A document probe, not a line probe: the tool's output is a file of its own, and a trigger would cost every
    big log a scan for it."""

    name = "rdma_topo"
    yields = ("pci.acs",)
    timeout_s = 10.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        return any(_VERDICT.match(line) for line in head.splitlines()[:200])

    def parse(self, text: str, ctx: ParseContext) -> None:
        for number, line in enumerate(text.splitlines(), start=1):
            m = _VERDICT.match(line)
            if not m:
                continue
            _, flags = decode(int(m["bits"], 2))
            port_type = "Root Port" if m["role"].endswith("_rp") else ""
            ctx.emit(PciAcs, number, line, node=ctx.node, rank=-1, bus_id=m["bdf"], device=m["role"],
                     port_type=port_type, enabled=m["verdict"] == "FAIL", flags=flags)
