"""Shared by the RDMA port parsers (ibv_devinfo, ibstat/ibstatus, rdma link): one vocabulary for port states.

Every tool spells states its own way (PORT_ACTIVE (4), Active, 4: ACTIVE, ACTIVE); facts use one:
state ACTIVE | DOWN | INIT | ARMED | ACTIVE_DEFER, phys_state LINK_UP | DISABLED | POLLING | SLEEP | ...
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from doctor.facts.fabric import IbGid, IbPort
from doctor.probing.contract import ParseContext

_STATES = {"active": "ACTIVE", "down": "DOWN", "init": "INIT", "initializing": "INIT", "armed": "ARMED",
           "active_defer": "ACTIVE_DEFER", "nop": "NOP"}
_PHYS = {"linkup": "LINK_UP", "link_up": "LINK_UP", "disabled": "DISABLED", "polling": "POLLING", "sleep": "SLEEP",
         "linkerrorrecovery": "LINK_ERROR_RECOVERY", "link_error_recovery": "LINK_ERROR_RECOVERY",
         "phytest": "PHY_TEST", "phy_test": "PHY_TEST", "nostatechange": "NO_STATE_CHANGE"}


def state_of(text: str) -> str:
    word = re.sub(r"^(?:port_)|\s*\(\d+\)$|^\d+:\s*", "", text.strip().lower())
    return _STATES.get(word, word.upper())


def phys_of(text: str) -> str:
    word = re.sub(r"^\d+:\s*|\s*\(\d+\)$", "", text.strip().lower()).replace(" ", "")
    return _PHYS.get(word, word.upper())


@dataclass
class PortReading:
    """What a tool said about one port, filled in as its lines go by."""

    device: str
    port: int
    number: int = 0
    line: str = ""
    state: str = ""
    phys_state: str = ""
    rate_gbps: float = -1
    link_layer: str = ""
    netdev: str = ""
    adapter: str = ""          # System image GUID: a dual-port card shows as two devices (mlx5_0, mlx5_1) sharing it

    def emit(self, ctx: ParseContext) -> None:
        if not self.state:
            return
        layer = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}.get(self.link_layer.lower(), self.link_layer)
        ctx.emit(IbPort, self.number, self.line, node=ctx.node, rank=-1, device=self.device, port=self.port,
                 state=self.state, active=self.state == "ACTIVE", phys_state=self.phys_state, rate_gbps=self.rate_gbps,
                 link_layer=layer, roce=layer == "Ethernet", netdev=self.netdev, adapter=self.adapter)


def adapter_of(guid: str) -> str:
    """A System image GUID in one spelling whichever tool printed it (ibstat 0x1070fd03001c4b8a, ibv_devinfo
    1070:fd03:001c:4b8a)."""
    text = guid.strip().lower()
    return text.removeprefix("0x").replace(":", "")


def emit_gid(ctx: ParseContext, number: int, line: str, device: str, port: int, index: int, gid: str,
             kind: str) -> None:
    """One GID entry; kind is the tool's type text ('RoCE v2', 'IB/RoCE v1', '' on IB or old tools)."""
    version = "v2" if "v2" in kind else "v1" if "v1" in kind else ""
    try:
        mapped = ipaddress.IPv6Address(gid).ipv4_mapped
    except ValueError:
        mapped = None
    ctx.emit(IbGid, number, line, node=ctx.node, rank=-1, device=device, port=port, index=index, gid=gid,
             version=version, ipv4=str(mapped) if mapped else "")
