"""Network interfaces and their addresses: `ip -j addr` (JSON), `ip addr` (text), or the same JSON written by
the live reader from psutil where iproute2 is missing.

Sample input (text form):
    2: eth0@if17: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP group default
        inet 10.42.0.7/24 brd 10.42.0.255 scope global eth0
"""
from __future__ import annotations

import ipaddress
import json
import socket
from typing import Any

from doctor.facts.hostconf import NetLink
from doctor.facts.launch import Interface
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.lines import address_class, virtual_interface
from doctor.probing.live import NotHere
from doctor.probing.regex import lazy_compile

_IF = lazy_compile(r"^\d+:\s+(?P<name>[^:@\s]+)(?:@\S+)?:\s+<(?P<flags>[^>]*)>(?:.*?\bmtu (?P<mtu>\d+))?")
_INET = lazy_compile(r"^\s+inet6?\s+(?P<addr>[0-9a-fA-F.:]+)(?:/(?P<prefix>\d+))?\b")


class NetInterfaces(DocumentProbe):
    name = "net_interfaces"
    yields = ("net.interface", "net.link")
    live = ("ip", "-j", "-p", "addr", "show")

    @classmethod
    def sniff(cls, head: str) -> bool:
        if head.lstrip().startswith("[") and '"ifname"' in head and '"addr_info"' in head:
            return True
        lines = head.splitlines()[:400]
        return any(_IF.match(x) for x in lines) and any(_INET.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        if text.lstrip().startswith("["):
            self._json(text, ctx)
            return
        name, mtu = "", -1
        for number, line in enumerate(text.splitlines(), start=1):
            m = _IF.match(line)
            if m:
                name, mtu = m["name"], int(m["mtu"]) if m["mtu"] else -1
                continue
            m = _INET.match(line)
            if m and name:
                _emit(ctx, number, line, name, m["addr"], mtu, int(m["prefix"]) if m["prefix"] else -1)

    def _json(self, text: str, ctx: ParseContext) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            return
        lines = text.splitlines()
        for iface in data if isinstance(data, list) else []:
            if not isinstance(iface, dict):
                continue
            addrs = iface.get("addr_info")
            for addr in addrs if isinstance(addrs, list) else []:
                local = str(addr.get("local", "")) if isinstance(addr, dict) else ""
                if local:
                    number = next((i for i, x in enumerate(lines, 1) if f'"{local}"' in x), 1)
                    prefix = addr.get("prefixlen")
                    _emit(ctx, number, lines[number - 1] if lines else "", str(iface.get("ifname", "")), local,
                          _int(iface.get("mtu")), _int(prefix))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _emit(ctx: ParseContext, number: int, line: str, name: str, address: str, mtu: int = -1, prefix: int = -1) -> None:
    loopback, link_local = address_class(address)
    ctx.emit(Interface, number, line, node=ctx.node, rank=-1, name=name, address=address, used_by="system",
             loopback=loopback, link_local=link_local, virtual=virtual_interface(name))
    if loopback or link_local:
        return
    network = ""
    if prefix >= 0 and ("." in address or ":" in address):   # an IPv6 prefix (global or unique-local) is a subnet too
        try:
            network = str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
        except ValueError:
            network = ""
    ctx.emit(NetLink, number, line, node=ctx.node, rank=-1, name=name, mtu=mtu, address=address, network=network,
             virtual=virtual_interface(name))


def read_live(_args: list[str]) -> str:
    """The `ip -j addr` shape from psutil, for nodes without iproute2."""
    try:
        import psutil
    except ImportError:
        raise NotHere("neither ip (iproute2) nor psutil is available") from None
    stats = psutil.net_if_stats()
    out: list[dict[str, Any]] = []
    for name, addrs in sorted(psutil.net_if_addrs().items()):
        info = [{"family": "inet" if a.family == socket.AF_INET else "inet6", "local": a.address.split("%")[0]}
                for a in addrs if a.family in (socket.AF_INET, socket.AF_INET6)]
        up = name in stats and stats[name].isup
        out.append({"ifname": name, "operstate": "UP" if up else "DOWN", "addr_info": info})
    return json.dumps(out, indent=2)
