"""`show_gids` (MLNX_OFED / DOCA): one row per GID of every RDMA port, with its IPv4 address, RoCE version and netdev.

RoCE GIDs are IP addresses: a row with an IPv4 address (an IPv4-mapped GID) or a RoCE version exists only on an
Ethernet (RoCE) port. Each row becomes an ib.gid fact, as ibv_devinfo -v's GID lines do.

Sample input:
    DEV	PORT	INDEX	GID					IPv4  		VER	DEV
    ---	----	-----	---					------------  	---	---
    mlx5_0	1	4	fe80:0000:0000:0000:c025:a1ff:fe31:2e81			v1	net1
    mlx5_0	1	7	0000:0000:0000:0000:0000:ffff:0a9c:8184	10.156.129.132  	v2	net1
"""
from __future__ import annotations

from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile
from probes.ib_ports import emit_gid

_HEADER = lazy_compile(r"^\s*DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$")
_ROW = lazy_compile(r"^\s*(?P<dev>\S+)\s+(?P<port>\d+)\s+(?P<i>\d+)\s+(?P<gid>[0-9a-fA-F:]{15,})\s+"
                    r"(?:(?P<ipv4>\d+\.\d+\.\d+\.\d+)\s+)?(?P<ver>v[12])\s+(?P<netdev>\S+)\s*$")


class ShowGids(DocumentProbe):
    name = "show_gids"
    yields = ("ib.gid",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        return any(_HEADER.match(x) for x in head.splitlines()[:50])

    def parse(self, text: str, ctx: ParseContext) -> None:
        for number, line in enumerate(text.splitlines(), start=1):
            m = _ROW.match(line)
            if m:
                emit_gid(ctx, number, line, m["dev"], int(m["port"]), int(m["i"]), m["gid"], f"RoCE {m['ver']}")
