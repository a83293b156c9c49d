"""`ibstat` and `ibstatus`: port state, physical state, rate and link layer per HCA port.

Sample input (ibstat, then ibstatus):
    CA 'mlx5_0'
    	Port 1:
    		State: Active
    		Physical state: LinkUp
    		Rate: 400
    		Link layer: InfiniBand
    Infiniband device 'mlx5_bond_0' port 1 status:
    	default gid:	 fe80:0000:0000:0000:0e42:a1ff:fe9a:6766
    	state:		 4: ACTIVE
    	phys state:	 5: LinkUp
    	rate:		 25 Gb/sec (1X EDR)
    	link_layer:	 Ethernet
"""
from __future__ import annotations

import re

from doctor.facts.hostconf import Firmware
from doctor.probing.contract import DocumentProbe, ParseContext
from probes.ib_ports import PortReading, adapter_of, emit_gid, phys_of, state_of
from doctor.probing.regex import lazy_compile

_CA = lazy_compile(r"^\s*CA '(?P<dev>[^']+)'")
_CA_PORT = lazy_compile(r"^\s*Port (?P<port>\d+):\s*$")
_CA_INFO = lazy_compile(r"^\s*(?P<key>CA type|Firmware version|System image GUID):\s*(?P<value>\S+)\s*$")
_IBSTATUS = lazy_compile(r"^\s*Infiniband device '(?P<dev>[^']+)' port (?P<port>\d+) status:")
_FIELD = lazy_compile(r"^\s*(?P<key>State|Physical state|Rate|Link layer|state|phys state|rate|link_layer|default gid):"
                    r"\s*(?P<value>.+?)\s*$")


class IbStatus(DocumentProbe):
    name = "ibstat"
    yields = ("ib.port", "ib.gid", "hw.firmware")
    live = ("ibstat",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:300]
        return any(_IBSTATUS.match(x) for x in lines) or (any(_CA.match(x) for x in lines) and
                                                          any(_CA_PORT.match(x) for x in lines))

    def parse(self, text: str, ctx: ParseContext) -> None:
        device, reading, board, adapter = "", None, "", ""
        for number, line in enumerate(text.splitlines(), start=1):
            m = _CA.match(line)
            if m:
                reading = self._flush(ctx, reading)
                device, board, adapter = m["dev"], "", ""
                continue
            m = _CA_INFO.match(line) if device and reading is None else None
            if m:
                if m["key"] == "CA type":
                    board = m["value"]
                elif m["key"] == "System image GUID":
                    adapter = adapter_of(m["value"])
                else:
                    ctx.emit(Firmware, number, line, device=device, board=board, version=m["value"])
                continue
            m = _CA_PORT.match(line) if device else None
            m = m or _IBSTATUS.match(line)
            if m:
                reading = self._flush(ctx, reading)
                if m.groupdict().get("dev"):         # ibstatus names the device on each port and prints no GUID
                    device, adapter = m["dev"], ""
                reading = PortReading(device, int(m["port"]), adapter=adapter)
                continue
            m = _FIELD.match(line)
            if m and reading:
                self._field(ctx, reading, m["key"].lower(), m["value"], number, line)
        self._flush(ctx, reading)

    @staticmethod
    def _field(ctx: ParseContext, reading: PortReading, key: str, value: str, number: int, line: str) -> None:
        if key == "state":
            reading.state, reading.number, reading.line = state_of(value), number, line
        elif key in ("physical state", "phys state"):
            reading.phys_state = phys_of(value)
        elif key == "rate":
            m = re.match(r"[\d.]+", value)
            reading.rate_gbps = float(m[0]) if m else -1
        elif key in ("link layer", "link_layer"):
            reading.link_layer = value
        elif key == "default gid":
            emit_gid(ctx, number, line, reading.device, reading.port, 0, value, "")

    @staticmethod
    def _flush(ctx: ParseContext, reading: PortReading | None) -> None:
        if reading:
            reading.emit(ctx)
        return None
