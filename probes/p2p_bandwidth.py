"""CUDA sample `p2pBandwidthLatencyTest`: which GPU pairs the driver calls peer-capable, how fast a copy runs
with peer access off (staged through host memory) and on (direct P2P writes), and where the run stopped.

Sample input:
    [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
    Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
    Device=0 CAN Access Peer Device=1
    P2P Connectivity Matrix
         D\\D     0     1
         0       1     1
    Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
       D\\D     0      1
         0 673.20  13.15
    Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
       D\\D     0      1
         0 673.49   2.60

A paste often starts at the matrices (the title, device and "CAN Access Peer" lines left out): the connectivity
matrix then says which pairs are peer-capable (1), and the run is read the same (aikitoria/open-gpu-kernel-modules#9).
"""
from __future__ import annotations

from doctor.facts.topo import P2pPairBandwidth, P2pTest
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_TITLE = "P2P (Peer-to-Peer) GPU Bandwidth Latency Test"
_DEVICE = lazy_compile(r"^Device: (?P<gpu>\d+), ")
_PEER = lazy_compile(r"^Device=(?P<a>\d+) (?P<can>CAN|CANNOT) Access Peer Device=(?P<b>\d+)")
_ROW = lazy_compile(r"^\s*(?P<row>\d+)\s+(?P<values>\d+(?:\.\d+)?(?:\s+\d+(?:\.\d+)?)*)\s*$")
# section headers, in the order the sample prints them; the key names the section in facts
_SECTIONS = (
    ("connectivity", lazy_compile(r"^P2P Connectivity Matrix")),
    ("uni_disabled", lazy_compile(r"^Unidirectional P2P=Disabled Bandwidth")),
    ("uni_enabled", lazy_compile(r"^Unidirectional P2P=Enabled Bandwidth")),
    ("bi_disabled", lazy_compile(r"^Bidirectional P2P=Disabled Bandwidth")),
    ("bi_enabled", lazy_compile(r"^Bidirectional P2P=Enabled Bandwidth")),
    ("lat_disabled", lazy_compile(r"^P2P=Disabled Latency")),
    ("lat_enabled", lazy_compile(r"^P2P=Enabled Latency")),
)
_BANDWIDTH = lazy_compile(r"^(?:Uni|Bi)directional P2P=(?:Disabled|Enabled) Bandwidth")
SLOWER = 0.5        # a peer-capable pair whose direct copy runs below half the staged copy: P2P is broken


class P2pBandwidthTest(DocumentProbe):
    name = "p2p_bandwidth"
    yields = ("p2p.pair", "p2p.test")
    timeout_s = 120.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = [x.strip() for x in head.splitlines()[:400]]
        if any(_TITLE in x or _PEER.match(x) for x in lines):
            return True
        return any(_SECTIONS[0][1].match(x) for x in lines) and any(_BANDWIDTH.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        devices: set[int] = set()
        peer: dict[tuple[int, int], tuple[int, str]] = {}
        rows: dict[str, dict[tuple[int, int], float]] = {}
        headers: dict[str, tuple[int, str]] = {}
        last = ""
        section, first = "", (0, "")
        lines: dict[int, tuple[int, str]] = {}      # connectivity matrix row -> its line
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            m = _DEVICE.match(stripped)
            if m:
                devices.add(int(m["gpu"]))
                first = first if first[0] else (number, line)
                continue
            m = _PEER.match(stripped)
            if m:
                first = first if first[0] else (number, line)
                if m["can"] == "CAN":
                    peer[(int(m["a"]), int(m["b"]))] = (number, line)
                devices.update((int(m["a"]), int(m["b"])))
                continue
            named = next((key for key, rx in _SECTIONS if rx.match(stripped)), "")
            if named:
                section = last = named
                headers.setdefault(named, (number, line))
                rows.setdefault(section, {})
                continue
            m = _ROW.match(line)
            if m and section:
                for col, value in enumerate(m["values"].split()):
                    rows[section][(int(m["row"]), col)] = float(value)
                if section == "connectivity":
                    lines[int(m["row"])] = (number, line)
        if not peer and rows.get("connectivity"):      # a paste without the "CAN Access Peer" lines: the matrix says it
            peer = {(a, b): lines[a] for (a, b), v in rows["connectivity"].items() if a != b and v == 1 and a in lines}
            devices.update(a for a, _ in rows["connectivity"])
            first = first if first[0] else headers["connectivity"]
        if not first[0]:
            return
        self._emit(ctx, peer, rows, devices, headers, first, last)

    @staticmethod
    def _emit(ctx: ParseContext, peer: dict[tuple[int, int], tuple[int, str]], rows: dict[str, dict[tuple[int, int], float]],
              devices: set[int], headers: dict[str, tuple[int, str]], first: tuple[int, str], last: str) -> None:
        off, on = rows.get("uni_disabled", {}), rows.get("uni_enabled", {})
        shares: list[float] = []
        for (a, b), (number, line) in sorted(peer.items()):
            g_off, g_on = off.get((a, b), -1.0), on.get((a, b), -1.0)
            if g_off < 0 and g_on < 0:
                continue
            share = round(g_on / g_off, 3) if g_off > 0 and g_on >= 0 else -1.0
            if share >= 0:
                shares.append(share)
            ctx.emit(P2pPairBandwidth, number, line, node=ctx.node, rank=-1, gpu_a=a, gpu_b=b, peer_access=True,
                     gbps_disabled=g_off, gbps_enabled=g_on, enabled_share=share)
        stopped = last if last and not rows.get(last) else ""
        slower = sum(1 for s in shares if s < SLOWER)
        number, line = headers[stopped] if stopped else headers["uni_enabled"] if slower else first
        ctx.emit(P2pTest, number, line, node=ctx.node, rank=-1, devices=len(devices), peer_pairs=len(peer),
                 measured_pairs=len(shares), slower_with_p2p=slower,
                 worst_share=min(shares, default=-1.0), stopped_in=stopped)
