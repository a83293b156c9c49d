"""`nvidia-smi topo -m`: how each GPU pair connects (NV#, PIX, PXB, PHB, NODE, SYS), how each GPU reaches
each NIC (NIC# columns named by the NIC Legend, or mlx5_# columns in older drivers), and each GPU's CPU
and NUMA affinity. Tabs or spaces; legends and trailing columns (GPU NUMA ID) are tolerated.

Sample input:
            GPU0    GPU1    GPU2    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID
    GPU0     X      NV12    SYS     PIX     0-15,32-47      0               N/A
    GPU1    NV12     X      SYS     NODE    0-15,32-47      0               N/A
    GPU2    SYS     SYS      X      SYS     16-31,48-63     1               N/A
    NIC0    PIX     NODE    SYS      X

    NIC Legend:

      NIC0: mlx5_0
"""
from __future__ import annotations

import re

from doctor.facts.fabric import TopoAffinity
from doctor.facts.topo import TopoLink, TopoNic
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_NIC = r"(?:NIC\d+|mlx\d*_\w+|ib[a-z]*\d\w*|bnxt_\w+|irdma\w*|qedr\w*|efa_?\w*|rocep\w+|hfi\d\w*|ionic_\w+|erdma_\w+)"
_HEADER = lazy_compile(r"^\s*GPU0(?:\s+(?:GPU\d+|" + _NIC + r"|CPU Affinity|NUMA Affinity|GPU NUMA ID))+")
_ROW = lazy_compile(r"^\s*GPU(?P<i>\d+)\s+(?P<cells>.*)$")
_CELL = lazy_compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")
_NIC_COLUMN = lazy_compile(r"^" + _NIC + r"$")
_LEGEND = lazy_compile(r"^\s*(?P<nic>NIC\d+)\s*:\s*(?P<name>\S+)\s*$")
PATH_OF = {"PIX": "pcie_switch", "PXB": "pcie_switch", "PHB": "host_bridge", "NODE": "numa", "SYS": "cross_socket",
           "SOC": "cross_socket"}


def path_of(link: str) -> str:
    return "nvlink" if link.startswith("NV") else PATH_OF.get(link, "unknown")


class TopoMatrix(DocumentProbe):
    name = "topo_matrix"
    yields = ("topo.link", "topo.nic", "topo.affinity")
    live = ("nvidia-smi", "topo", "-m")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return any(_HEADER.match(line) for line in head.splitlines()[:50])

    def parse(self, text: str, ctx: ParseContext) -> None:
        columns: list[str] = []
        nics: list[tuple[int, str, int, str, str]] = []     # (line no, line, gpu, column, cell): named after the legend
        legend: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            if _HEADER.match(line):
                columns = re.split(r"\t+|\s{2,}", line.strip())
                continue
            m = _LEGEND.match(line)
            if m:
                legend[m["nic"]] = m["name"]
                continue
            m = _ROW.match(line)
            if not (m and columns):
                continue
            cells = [c.strip() for c in re.split(r"\t|\s+", m["cells"].strip()) if c.strip()]
            nics.extend(self._row(ctx, number, line, int(m["i"]), columns, cells))
        for number, line, gpu, column, cell in nics:
            ctx.emit(TopoNic, number, line, node=ctx.node, rank=-1, gpu=gpu, nic=legend.get(column, column), link=cell,
                     path=path_of(cell))

    def _row(self, ctx: ParseContext, number: int, line: str, gpu: int, columns: list[str],
             cells: list[str]) -> list[tuple[int, str, int, str, str]]:
        nics = []
        affinity: dict[str, str] = {}
        for column, cell in zip(columns, cells):
            if column.startswith("GPU") and column[3:].isdigit() and _CELL.match(cell):
                other = int(column[3:])
                if other > gpu:
                    nvlinks = int(cell[2:]) if cell.startswith("NV") else 0
                    ctx.emit(TopoLink, number, line, node=ctx.node, rank=-1, gpu_a=gpu, gpu_b=other, link=cell,
                             path=path_of(cell), nvlinks=nvlinks)
            elif _NIC_COLUMN.match(column) and _CELL.match(cell) and cell != "X":
                nics.append((number, line, gpu, column, cell))
            elif column in ("CPU Affinity", "NUMA Affinity"):
                affinity[column] = cell
        if affinity:
            numa = affinity.get("NUMA Affinity", "")
            ctx.emit(TopoAffinity, number, line, node=ctx.node, rank=-1, gpu=gpu, cpus=affinity.get("CPU Affinity", ""),
                     numa=int(numa) if numa.isdigit() else -1)
        return nics
