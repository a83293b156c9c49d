"""`ethtool -i <nic>`: the driver and firmware of one network adapter.

Sample input:
    driver: mlx5_core
    version: 24.04-0.6.6
    firmware-version: 28.39.1002 (MT_0000000838)
    bus-info: 0000:0c:00.0
"""
from __future__ import annotations

from doctor.facts.hostconf import Firmware
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_KEY = lazy_compile(r"^(?P<key>driver|firmware-version|bus-info):\s*(?P<value>.*?)\s*$")


class EthtoolInfo(DocumentProbe):
    name = "ethtool_info"
    yields = ("hw.firmware",)
    live = ("sh", "-c", "for n in /sys/class/net/*; do ethtool -i ${n##*/} 2>/dev/null; done")

    @classmethod
    def sniff(cls, head: str) -> bool:
        keys = {m["key"] for m in map(_KEY.match, head.splitlines()[:200]) if m}
        return keys >= {"driver", "firmware-version", "bus-info"}

    def parse(self, text: str, ctx: ParseContext) -> None:
        driver, firmware = "", None
        for number, line in enumerate(text.splitlines(), start=1):
            m = _KEY.match(line)
            if not m:
                continue
            if m["key"] == "driver":
                driver, firmware = m["value"], None
            elif m["key"] == "firmware-version":
                firmware = (number, line, m["value"]) if m["value"] else None     # virtual NICs report none
            elif firmware and m["value"]:        # bus-info: the adapter's PCI address names it
                number, text_line, value = firmware
                board = value.split("(")[-1].rstrip(")") if "(" in value else driver
                ctx.emit(Firmware, number, text_line, device=m["value"], board=board, version=value.split(" ")[0])
                firmware = None
