"""Raw PCIe ACS Control registers read with `setpci`: the PLX switch offset (`setpci -s <bdf> f2a.w`), the
capability form (`setpci -s <bdf> ECAP_ACS+0x6.w`) and the NCCL troubleshooting script's listing
(`<bdf> (ecap 000d @2a0) @2a6 001d`). Each value becomes a pci.acs fact, decoded like lspci's ACSCtl flags.

Sample input:
    $ for plx in $(lspci | grep -i plx | awk '{print $1}'); do sudo setpci -s ${plx} f2a.w; done
    0000
    001d
    0000:00:07.1 (ecap 000d @2a0) @2a6 0000
"""
from __future__ import annotations

from doctor.facts.hardware import PciAcs
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_READ = lazy_compile(r"(?:\bf2a\.w|ECAP_ACS\+(?:0x)?0?6\.w)(?!\s*=)")   # on a line that runs setpci
_LISTED = lazy_compile(r"^\s*(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+\(ecap 000d @[0-9a-fA-F]+\)"
                       r"\s+@[0-9a-fA-F]+\s*=?\s*(?P<value>[0-9a-fA-F]{4})\s*$")
_VALUE = lazy_compile(r"^\s*(?P<value>[0-9a-fA-F]{4})\s*$")
_PROMPT = lazy_compile(r"[$#]\s")
# ACS Control register bits, named as lspci prints them
BITS = ((0x01, "SrcValid"), (0x02, "TransBlk"), (0x04, "ReqRedir"), (0x08, "CmpltRedir"), (0x10, "UpstreamFwd"),
        (0x20, "EgressCtrl"), (0x40, "DirectTrans"))
REDIRECTING = 0x01 | 0x04 | 0x08      # SrcValid, ReqRedir, CmpltRedir: lspci.py's _REDIRECTING


def _reads(line: str) -> bool:
    return "setpci" in line and _READ.search(line) is not None


def decode(value: int) -> tuple[bool, str]:
    on = [f"{name}+" for bit, name in BITS if value & bit]
    return bool(value & REDIRECTING), " ".join(on)


class AcsRegisters(DocumentProbe):
    name = "acs_registers"
    yields = ("pci.acs",)
    timeout_s = 10.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:2000]
        return any(_reads(x) or _LISTED.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        reading = False
        for number, line in enumerate(text.splitlines(), start=1):
            m = _LISTED.match(line)
            if m:
                self._emit(ctx, number, line, m["bdf"], int(m["value"], 16))
                continue
            if _reads(line):
                reading = True
                continue
            m = _VALUE.match(line)
            if reading and m:
                self._emit(ctx, number, line, "", int(m["value"], 16))
            elif reading and _PROMPT.search(line) and "password" not in line.lower():
                reading = False

    @staticmethod
    def _emit(ctx: ParseContext, number: int, line: str, bdf: str, value: int) -> None:
        enabled, flags = decode(value)
        ctx.emit(PciAcs, number, line, node=ctx.node, rank=-1, bus_id=bdf, device="", port_type="", enabled=enabled,
                 flags=flags)
