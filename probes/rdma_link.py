"""`rdma link` (iproute2): one line per RDMA port with state, physical state and the netdev.

Sample input:
    link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 3 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP
    link mlx5_4/1 state ACTIVE physical_state LINK_UP netdev enp97s0f0
"""
from __future__ import annotations


from doctor.probing.contract import DocumentProbe, ParseContext
from probes.ib_ports import PortReading, phys_of, state_of
from doctor.probing.regex import lazy_compile

_LINK = lazy_compile(r"^\s*(?:\d+/\d+:\s*)?link (?P<dev>[\w.\-]+)/(?P<port>\d+)\s+(?P<rest>.*\bstate\s+\S+.*)$")


class RdmaLink(DocumentProbe):
    name = "rdma_link"
    yields = ("ib.port",)
    live = ("rdma", "link", "show")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return any(_LINK.match(x) for x in head.splitlines()[:300])

    def parse(self, text: str, ctx: ParseContext) -> None:
        for number, line in enumerate(text.splitlines(), start=1):
            m = _LINK.match(line)
            if not m:
                continue
            words = m["rest"].split()
            pairs = dict(zip(words[::2], words[1::2]))
            reading = PortReading(m["dev"], int(m["port"]), number, line, state=state_of(pairs.get("state", "")),
                                  phys_state=phys_of(pairs.get("physical_state", "")), netdev=pairs.get("netdev", ""))
            reading.link_layer = "InfiniBand" if "lid" in pairs else "Ethernet" if reading.netdev else ""
            reading.emit(ctx)
