"""Expected bandwidth from topology: for each GPU pair and each GPU-NIC pair, the link class and what a
healthy node of that class reaches in a one-direction bandwidth test, so a later measurement can be read
as "expected X, measured Y".

Link rates are per direction: NVLink per link by generation (or the rate `nvidia-smi nvlink -s` printed),
PCIe per lane by generation, IB/RoCE the port rate / 8. EFFICIENCY is the share of the raw rate that
p2pBandwidthLatencyTest / ib_write_bw reach on healthy machines (protocol overhead, switch hops, the CPU
interconnect for SYS). They are rules of thumb, written down once here, not measurements of this node.
"""
from __future__ import annotations

import re
from collections import defaultdict

from doctor.facts import Fact
from doctor.facts.fabric import ExpectedBandwidth, IbPort
from doctor.facts.gpu import GpuDevice
from doctor.facts.hardware import PcieLink
from doctor.facts.topo import NvlinkState, TopoLink, TopoNic

NVLINK_GBS = {1: 20.0, 2: 25.0, 3: 25.0, 4: 25.0, 5: 50.0}                       # per link, per direction
PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}        # per lane, per direction
EFFICIENCY = {"nvlink": 0.85, "PIX": 0.8, "PXB": 0.8, "PHB": 0.75, "NODE": 0.7, "SYS": 0.6, "SOC": 0.6, "nic": 0.95}
# GPU model -> (NVLink generation or 0, PCIe generation, lanes): used when the node did not report its link.
MODELS: tuple[tuple[str, int, int, int], ...] = (
    (r"\bP100", 1, 3, 16), (r"\bV100", 2, 3, 16), (r"\bA100|\bA800", 3, 4, 16), (r"\bA30\b", 3, 4, 16),
    (r"\bGH200|\bH100|\bH800|\bH200|\bH20\b", 4, 5, 16), (r"\bGB200|\bB200|\bB100", 5, 5, 16),
    (r"\bL40S?\b|\bL4\b|\bA40\b|RTX A6000|RTX 6000 Ada|RTX [34]0[6-9]0", 0, 4, 16), (r"\bT4\b", 0, 3, 16),
)


def model_links(name: str) -> tuple[int, int, int]:
    for pattern, nvlink, gen, lanes in MODELS:
        if re.search(pattern, name):
            return nvlink, gen, lanes
    return 0, -1, -1


def expected_bandwidth(facts: list[Fact]) -> list[Fact]:
    nodes: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for f in facts:
        if isinstance(f, (TopoLink, TopoNic, GpuDevice, PcieLink, NvlinkState, IbPort)):
            nodes[f.node][f.KIND].append(f)
    out: list[Fact] = []
    for node, kinds in nodes.items():
        view = _NodeView(kinds)
        out += [view.gpu_pair(link) for link in kinds["topo.link"]]
        out += [view.gpu_nic(nic) for nic in kinds["topo.nic"]]
    return out


class _NodeView:
    def __init__(self, kinds: dict[str, list]) -> None:
        names = {d.index: d.name for d in kinds["gpu.device"]}
        self.model = model_links(next(iter(names.values()), ""))
        self.pcie = {p.gpu: (p.gen_max, p.width_max) for p in kinds["gpu.pcie"] if p.gpu >= 0 and p.gen_max > 0}
        self.nvlink_gbs = max((n.gbs for n in kinds["nvlink.link"] if n.active), default=0.0)
        self.ports = {p.device: p for p in kinds["ib.port"] if p.active and p.rate_gbps > 0}

    def pcie_of(self, *gpus: int) -> tuple[int, int, str]:
        known = [self.pcie[g] for g in gpus if g in self.pcie]
        if known:
            gen, lanes = min(known)
            return gen, lanes, "reported by the GPU"
        return self.model[1], self.model[2], "typical for this GPU model"

    def gpu_pair(self, link: TopoLink) -> ExpectedBandwidth:
        a, b = f"GPU{link.gpu_a}", f"GPU{link.gpu_b}"
        if link.path == "nvlink":
            per_link = self.nvlink_gbs or NVLINK_GBS.get(self.model[0], 0.0)
            gen = f"nvlink{self.model[0]}" if self.model[0] else "nvlink"
            raw = per_link * link.nvlinks
            basis = f"{link.nvlinks} NVLink(s) x {per_link:g} GB/s" if per_link else "NVLink generation unknown"
            return self._fact(link, a, b, f"{gen} x{link.nvlinks}", raw, EFFICIENCY["nvlink"], basis)
        gen, lanes, source = self.pcie_of(link.gpu_a, link.gpu_b)
        raw = PCIE_LANE_GBS.get(gen, 0.0) * lanes if lanes > 0 else 0.0
        basis = f"PCIe gen{gen} x{lanes} ({source}), {link.link} path" if raw else "PCIe generation unknown"
        return self._fact(link, a, b, f"pcie gen{gen} x{lanes}" if raw else "pcie", raw, EFFICIENCY.get(link.link, 0.6), basis)

    def gpu_nic(self, nic: TopoNic) -> ExpectedBandwidth:
        gen, lanes, _ = self.pcie_of(nic.gpu)
        pcie = PCIE_LANE_GBS.get(gen, 0.0) * lanes if lanes > 0 else 0.0
        port = self.ports.get(nic.nic)
        if not port:
            return self._fact(nic, f"GPU{nic.gpu}", nic.nic, "nic", 0.0, 0.0, "NIC rate unknown (no active port reported)")
        wire = port.rate_gbps / 8
        kind = "roce" if port.roce else "ib"
        staged = nic.link in ("SYS", "SOC")
        raw = min(wire, pcie) if pcie else wire
        factor = EFFICIENCY["nic"] * (EFFICIENCY["SYS"] if staged else 1.0)
        basis = f"{kind} {port.rate_gbps:g} Gb/s" + (", staged through host memory across sockets" if staged else
                                                      ", GPUDirect RDMA path" if nic.link in ("PIX", "PXB") else "")
        return self._fact(nic, f"GPU{nic.gpu}", nic.nic, f"{kind} {port.rate_gbps:g}G", raw, factor, basis)

    @staticmethod
    def _fact(src: Fact, a: str, b: str, link_class: str, raw: float, factor: float, basis: str) -> ExpectedBandwidth:
        return ExpectedBandwidth(node=src.node, origin=src.origin, a=a, b=b, link=getattr(src, "link", ""),
                                 link_class=link_class, link_gbs=round(raw, 1) if raw else -1,
                                 expected_gbs=round(raw * factor, 1) if raw else -1, basis=basis)
