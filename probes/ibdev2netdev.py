"""`ibdev2netdev` (MLNX_OFED / DOCA): one line per RDMA port with the netdev on top of it and that netdev's link.

Sample input:
    mlx5_3 port 1 ==> net1 (Down)
    rocep1s0f0 port 1 ==> enp1s0f0np0 (Up)
    0002:00:02.0 mlx4_0 (MT4100 - NA)  fw 2.43.7008 port 1 (ACTIVE) ==> ib0 (Down)      (ibdev2netdev -v)

With -v the port's own state is printed and is what counts. Otherwise "(Up)/(Down)" is the netdev's: for an Ethernet
(RoCE) netdev that is the port's link (no carrier: cable, switch port, or an SR-IOV VF whose link state is disabled);
for an IPoIB netdev (ib0, ibp26s0) it is only the IPoIB interface, which is often left down on a healthy fabric, so it
says nothing about the IB port and is not read. Ports whose netdevs are functions of one PCI device (enp1s0f0np0,
enp1s0f1np1) are one card's ports: the adapter is that device's name.

Goldens (fixtures/probes/ibdev2netdev/) are whole outputs copied from the inputs of real cases: imbue-... from
healthy-imbue-clusterhealth-4, dgx-spark-... from healthy-dgx-spark-roce-ib-write-bw, azure-... from
healthy-nccltests-36-maintainer-azure-nc24rs.
"""
from __future__ import annotations


from doctor.probing.contract import DocumentProbe, ParseContext
from probes.ib_ports import PortReading, state_of
from doctor.probing.regex import lazy_compile

_PORT = lazy_compile(r"^\s*(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s+)?(?P<dev>[\w.\-]+)\b.*?"
                     r"\bport\s+(?P<port>\d+)(?:\s+\((?P<state>[A-Z_]+)\))?\s+==>\s+(?P<netdev>[\w.\-@]+)\s+"
                     r"\((?P<link>Up|Down)\)")
_IPOIB = lazy_compile(r"^ib")
_PCI_FUNCTION = lazy_compile(r"^(?P<device>en\w*?p\d+s\d+)f\d+")


def _reading(m, number: int, line: str) -> PortReading | None:
    netdev = m["netdev"]
    if m["state"]:
        state = state_of(m["state"])
    elif _IPOIB.match(netdev):
        return None
    else:
        state = "ACTIVE" if m["link"] == "Up" else "DOWN"
    card = _PCI_FUNCTION.match(netdev)
    return PortReading(m["dev"], int(m["port"]), number, line, state=state,
                       phys_state="LINK_UP" if m["link"] == "Up" and not _IPOIB.match(netdev) else "",
                       link_layer="" if _IPOIB.match(netdev) else "Ethernet", netdev=netdev,
                       adapter=card["device"] if card else "")


class Ibdev2netdev(DocumentProbe):
    name = "ibdev2netdev"
    yields = ("ib.port",)
    live = ("ibdev2netdev", "-v")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return any(_PORT.match(x) for x in head.splitlines()[:300])

    def parse(self, text: str, ctx: ParseContext) -> None:
        for number, line in enumerate(text.splitlines(), start=1):
            if (m := _PORT.match(line)) and (reading := _reading(m, number, line)):
                reading.emit(ctx)
