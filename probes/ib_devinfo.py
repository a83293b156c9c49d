"""`ibv_devinfo [-v]`: every HCA port's state, physical state, link layer (InfiniBand or Ethernet = RoCE),
active width x speed, and with -v the GID table (type RoCE v1/v2 on Ethernet ports).

Sample input:
    hca_id:	mlx5_0
    	transport:			InfiniBand (0)
    		port:	1
    			state:			PORT_ACTIVE (4)
    			link_layer:		Ethernet
    			active_width:		4X (2)
    			active_speed:		25.0 Gbps (32)
    			phys_state:		LINK_UP (5)
    			GID[  3]:		::ffff:10.7.159.71, RoCE v2
"""
from __future__ import annotations

import ipaddress
import re

from doctor.facts.hostconf import Firmware
from doctor.probing.contract import DocumentProbe, ParseContext
from probes.ib_ports import PortReading, adapter_of, emit_gid, phys_of, state_of
from doctor.probing.regex import lazy_compile

_HCA = lazy_compile(r"^\s*hca_id:\s*(?P<dev>\S+)")
_PORT = lazy_compile(r"^\s*port:\s*(?P<port>\d+)\s*$")
_FIELD = lazy_compile(r"^\s*(?P<key>state|phys_state|link_layer|active_width|active_speed):\s*(?P<value>.+?)\s*$")
_HCA_FIELD = lazy_compile(r"^\s*(?P<key>fw_ver|board_id|vendor_part_id|sys_image_guid):\s*(?P<value>\S+)\s*$")
_GID = lazy_compile(r"^\s*GID\[\s*(?P<i>\d+)\]:\s*(?P<gid>[0-9a-fA-F:.]+)(?:,\s*(?P<kind>.+?))?\s*$")


def _roce_gid(m: re.Match[str] | None) -> bool:
    """A GID line that is RoCE by its type ('RoCE v2') or by its value: an IPv4-mapped GID (::ffff:a.b.c.d, or
    0000:...:ffff:xxxx:xxxx as GID tables print it) is an IP address, which only an Ethernet port carries."""
    if m is None:
        return False
    if "RoCE" in (m["kind"] or ""):
        return True
    try:
        return ipaddress.IPv6Address(m["gid"]).ipv4_mapped is not None
    except ValueError:
        return False


class IbvDevinfo(DocumentProbe):
    name = "ibv_devinfo"
    yields = ("ib.port", "ib.gid", "hw.firmware")
    live = ("ibv_devinfo", "-v")

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:300]
        return any(_HCA.match(x) for x in lines) and any(_PORT.match(x) for x in lines) or \
            any(_roce_gid(_GID.match(x)) for x in lines)   # a pasted GID table alone

    def parse(self, text: str, ctx: ParseContext) -> None:
        device, reading = "", None
        width, speed = 0, -1.0
        firmware: dict[str, dict[str, object]] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            m = _HCA_FIELD.match(line) if reading is None and device else None
            if m:
                entry = firmware.setdefault(device, {})
                entry[m["key"]] = m["value"]
                if m["key"] == "fw_ver":
                    entry["at"] = (number, line)
                continue
            m = _HCA.match(line) or _PORT.match(line)
            if m:
                if reading:
                    reading.emit(ctx)
                reading = None
                if "dev" in m.groupdict():
                    device = m["dev"]
                else:
                    adapter = adapter_of(str(firmware.get(device, {}).get("sys_image_guid", "")))
                    reading, width, speed = PortReading(device, int(m["port"]), adapter=adapter), 0, -1.0
                continue
            if reading is None:
                m = _GID.match(line)      # GID lines pasted without their hca_id/port header: the table, port unknown
                if _roce_gid(m):
                    emit_gid(ctx, number, line, device, -1, int(m["i"]), m["gid"], m["kind"] or "")
                continue
            m = _FIELD.match(line)
            if m:
                key, value = m["key"], m["value"]
                if key == "state":
                    reading.state, reading.number, reading.line = state_of(value), number, line
                elif key == "phys_state":
                    reading.phys_state = phys_of(value)
                elif key == "link_layer":
                    reading.link_layer = value
                elif key == "active_width":
                    width = int(value.split("X")[0]) if value.split("X")[0].isdigit() else 0
                else:
                    speed = float(value.split()[0]) if re.match(r"[\d.]+", value) else -1.0
                if width and speed > 0:
                    reading.rate_gbps = width * speed
                continue
            m = _GID.match(line)
            if m:
                emit_gid(ctx, number, line, device, reading.port, int(m["i"]), m["gid"], m["kind"] or "")
        if reading:
            reading.emit(ctx)
        for dev, entry in firmware.items():
            if "at" in entry:
                number, line = entry["at"]      # type: ignore[misc]
                board = str(entry.get("board_id") or entry.get("vendor_part_id") or "")
                ctx.emit(Firmware, number, line, device=dev, board=board, version=str(entry["fw_ver"]))
