"""`lspci -vvv` (whole, or grepped for LnkSta/ACSCtl): GPU and NIC links running below capability, and PCIe
bridges with Access Control Services on (they redirect GPU peer-to-peer traffic to the root complex).

Sample input:
    41:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 80GB] (rev a1)
    		LnkCap:	Port #0, Speed 16GT/s, Width x16, ASPM not supported
    		LnkSta:	Speed 16GT/s (ok), Width x8 (downgraded)
    3d:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)
    		ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
"""
from __future__ import annotations

import re

from doctor.facts.hardware import PciAcs, PcieLink
from doctor.probing.contract import DocumentProbe, ParseContext
from probes.pcie_kernel import gen_of
from doctor.probing.regex import lazy_compile

_DEVICE = lazy_compile(r"^(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (?P<desc>[^:]+: .*)$")
_LNK = lazy_compile(r"^\s*(?P<which>LnkCap|LnkSta):\s+(?:Port #\d+,\s*)?Speed (?P<speed>[\d.]+)GT/s[^,]*,\s*"
                  r"Width x(?P<width>\d+)")
# a per-device summary on one line, as scripts print it ("for d in ...; lspci -s $d -vv | grep Lnk"):
# "0002:01:00.0  LnkCap: Speed 32GT/s, Width x4    LnkSta: Speed 32GT/s, Width x2 (downgraded)"
_ONE_LINE = lazy_compile(r"^(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+LnkCap:\s+(?:Port #\d+,\s*)?"
                       r"Speed (?P<cs>[\d.]+)GT/s[^,]*,\s*Width x(?P<cw>\d+).*?LnkSta:\s+Speed (?P<ss>[\d.]+)GT/s[^,]*,\s*"
                       r"Width x(?P<sw>\d+)")
_ACS = lazy_compile(r"^\s*ACSCtl:\s+(?P<flags>.*)$")
_EXPRESS = lazy_compile(r"^\s*Capabilities: \[\w+\] Express \(v\d\) (?P<type>Root Port|Upstream Port|Downstream Port)")
_REDIRECTING = ("SrcValid+", "ReqRedir+", "CmpltRedir+")


def _kind(desc: str) -> str:
    if re.search(r"(3D|VGA compatible) controller: NVIDIA", desc):
        return "gpu"
    if re.search(r"Infiniband controller|Ethernet controller: Mellanox|Network controller: Mellanox", desc):
        return "nic"
    return "other" if desc else "unknown"


class Lspci(DocumentProbe):
    name = "lspci"
    yields = ("gpu.pcie", "pci.acs")
    live = ("lspci", "-vvv")
    timeout_s = 20.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:2000]
        return any(_LNK.match(x) or _ACS.match(x) or _ONE_LINE.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        bdf, desc, port_type = "", "", ""
        cap: tuple[int, int] | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            m = _ONE_LINE.match(line)
            if m:
                cap_now = (gen_of(m["cs"]), int(m["cw"])), (gen_of(m["ss"]), int(m["sw"]))
                self._link(ctx, number, line, m["bdf"], "PCIe device", *cap_now)
                continue
            m = _DEVICE.match(line)
            if m:
                bdf, desc, cap, port_type = m["bdf"], m["desc"].strip(), None, ""
                continue
            m = _EXPRESS.match(line)
            if m:
                port_type = m["type"]
                continue
            m = _ACS.match(line)
            if m:
                on = [f for f in m["flags"].split() if f.endswith("+")]
                ctx.emit(PciAcs, number, line, node=ctx.node, rank=-1, bus_id=bdf, device=desc[:120], port_type=port_type,
                         enabled=any(f in _REDIRECTING for f in on), flags=" ".join(on))
                continue
            m = _LNK.match(line)
            if not m:
                continue
            speed, width = gen_of(m["speed"]), int(m["width"])
            if m["which"] == "LnkCap":
                cap = (speed, width)
            elif cap and _kind(desc) in ("gpu", "nic", "unknown"):
                self._link(ctx, number, line, bdf, desc, cap, (speed, width))

    @staticmethod
    def _link(ctx: ParseContext, number: int, line: str, bdf: str, desc: str, cap: tuple[int, int],
              now: tuple[int, int]) -> None:
        ctx.emit(PcieLink, number, line, node=ctx.node, rank=-1, gpu=-1, bus_id=bdf, device=desc[:120], gen=now[0],
                 gen_max=cap[0], width=now[1], width_max=cap[1], gen_degraded=0 < now[0] < cap[0],
                 width_degraded=0 < now[1] < cap[1], load="unknown", source="lspci")
