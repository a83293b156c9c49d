"""Network interfaces and their addresses: `ip -j addr` (JSON), `ip addr` (text), `ifconfig` (net-tools 1.x and 2.x,
macOS/BSD), or the same JSON written by the live reader from psutil where iproute2 is missing.

Sample input (text form):
    2: eth0@if17: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP group default
        inet 10.42.0.7/24 brd 10.42.0.255 scope global eth0
    ens5: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 9001                      (ifconfig, net-tools 2.x)
            inet 172.31.65.244  netmask 255.255.224.0  broadcast 172.31.95.255
    en0: flags=8822<BROADCAST,SMART,SIMPLEX,MULTICAST> mtu 1500                     (macOS)
            inet 192.168.2.1 netmask 0xffffff00 broadcast 192.168.2.255
    eth1      Link encap:Ethernet  HWaddr 00:17:31:9C:93:A2                         (net-tools 1.x)
              inet addr:192.168.1.14  Bcast:192.168.1.255  Mask:255.255.255.0
              UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1
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
# ifconfig: the interface's own line, then its addresses (IPv4 with a dotted or hex netmask; IPv6 with prefixlen)
_IFCONFIG_NEW = lazy_compile(r"^(?P<name>[\w.:\-]+): flags=[0-9a-fA-F]+<(?P<flags>[^>]*)>(?:.*?\bmtu (?P<mtu>\d+))?")
_IFCONFIG_OLD = lazy_compile(r"^(?P<name>[\w.:\-]+)\s+Link encap:")
_IFCONFIG_INET = lazy_compile(r"^\s+inet (?:addr:)?(?P<addr>\d{1,3}(?:\.\d{1,3}){3})\b.*?\b(?:netmask |Mask:)"
                              r"(?P<mask>0x[0-9a-fA-F]{8}|\d{1,3}(?:\.\d{1,3}){3})")
_IFCONFIG_INET6 = lazy_compile(r"^\s+inet6 (?:addr:\s*)?(?P<addr>[0-9a-fA-F:]+)(?:%\S+)?"
                               r"(?:/(?P<slash>\d+)|\s+prefixlen (?P<prefix>\d+))")
_IFCONFIG_MTU = lazy_compile(r"^\s+\b(?:UP|BROADCAST|RUNNING)\b.*?\bMTU:(?P<mtu>\d+)")


class NetInterfaces(DocumentProbe):
    name = "net_interfaces"
    yields = ("net.interface", "net.link")
    live = ("ip", "-j", "-p", "addr", "show")

    @classmethod
    def sniff(cls, head: str) -> bool:
        if head.lstrip().startswith("[") and '"ifname"' in head and '"addr_info"' in head:
            return True
        lines = head.splitlines()[:400]
        if any(_IF.match(x) for x in lines) and any(_INET.match(x) for x in lines):
            return True
        return any(_IFCONFIG_NEW.match(x) or _IFCONFIG_OLD.match(x) for x in lines) and \
            any(_IFCONFIG_INET.match(x) or _IFCONFIG_INET6.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        if text.lstrip().startswith("[") and '"ifname"' in text:   # not a "[root@host ~]# ifconfig" transcript
            self._json(text, ctx)
            return
        if not any(_IF.match(x) for x in text.splitlines()[:400]):
            self._ifconfig(text, ctx)
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

    def _ifconfig(self, text: str, ctx: ParseContext) -> None:
        """ifconfig: an address line belongs to the interface line above it; net-tools 1.x gives the MTU after the
        addresses, so each interface's addresses are emitted when its block ends."""
        block: dict[str, Any] | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if (m := _IFCONFIG_NEW.match(line) or _IFCONFIG_OLD.match(line)):
                _flush(ctx, block)
                block = {"name": m["name"], "mtu": int(m.groupdict().get("mtu") or -1), "addrs": []}
            elif block is not None:
                if (a := _IFCONFIG_INET.match(line)):
                    block["addrs"].append((number, line, a["addr"], _prefix(a["mask"])))
                elif (a6 := _IFCONFIG_INET6.match(line)):
                    block["addrs"].append((number, line, a6["addr"], int(a6["slash"] or a6["prefix"])))
                elif (mtu := _IFCONFIG_MTU.match(line)):
                    block["mtu"] = int(mtu["mtu"])
        _flush(ctx, block)

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


def _flush(ctx: ParseContext, block: dict[str, Any] | None) -> None:
    for number, line, address, prefix in block["addrs"] if block else []:
        _emit(ctx, number, line, block["name"], address, block["mtu"], prefix)   # type: ignore[index]


def _prefix(mask: str) -> int:
    """A netmask as ifconfig prints it (255.255.224.0, or 0xffffff00 on macOS) -> its prefix length; -1 if not one."""
    try:
        bits = int(mask, 16) if mask.startswith("0x") else int(ipaddress.IPv4Address(mask))
    except ValueError:
        return -1
    ones = bin(bits).count("1")
    return ones if bits == (0xFFFFFFFF << (32 - ones)) & 0xFFFFFFFF else -1


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
