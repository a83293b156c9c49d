"""`nvidia-smi topo -m`: how each GPU pair connects (NV#, PIX, PXB, PHB, NODE, SYS), tabs or spaces.

Sample input:
            GPU0    GPU1    GPU2    CPU Affinity    NUMA Affinity
    GPU0     X      NV12    SYS     0-15,32-47      0
    GPU1    NV12     X      SYS     0-15,32-47      0
    GPU2    SYS     SYS      X      16-31,48-63     1
"""
from __future__ import annotations

import re

from doctor.facts.topo import TopoLink, TopoNic
from doctor.probing.contract import DocumentProbe, ParseContext

_HEADER = re.compile(r"^\s*GPU0(?:\s+(?:GPU\d+|NIC\d+|mlx\w+|CPU Affinity|NUMA Affinity|GPU NUMA ID))+")
_ROW = re.compile(r"^\s*GPU(?P<i>\d+)\s+(?P<cells>.*)$")
_CELL = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")
_NIC_LEGEND = re.compile(r"^\s*(?P<nic>NIC\d+):\s*(?P<name>\S+)\s*$", re.M)
PATH_OF = {"PIX": "pcie_switch", "PXB": "pcie_switch", "PHB": "host_bridge", "NODE": "numa", "SYS": "cross_socket",
           "SOC": "cross_socket"}


def path_of(link: str) -> str:
    return "nvlink" if link.startswith("NV") else PATH_OF.get(link, "unknown")


class TopoMatrix(DocumentProbe):
    name = "topo_matrix"
    yields = ("topo.link", "topo.nic")
    live = ("nvidia-smi", "topo", "-m")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return any(_HEADER.match(line) for line in head.splitlines()[:50])

    def parse(self, text: str, ctx: ParseContext) -> None:
        columns: list[str] = []
        nic_names = {m["nic"]: m["name"] for m in _NIC_LEGEND.finditer(text)}
        for number, line in enumerate(text.splitlines(), start=1):
            if _HEADER.match(line):
                columns = re.split(r"\t+|\s{2,}", line.strip())
                continue
            m = _ROW.match(line)
            if not (m and columns):
                continue
            cells = [c.strip() for c in re.split(r"\t|\s+", m["cells"].strip()) if c.strip()]
            self._row(ctx, number, line, int(m["i"]), columns, cells, nic_names)

    def _row(self, ctx: ParseContext, number: int, line: str, gpu: int, columns: list[str], cells: list[str],
             nic_names: dict[str, str]) -> None:
        for column, cell in zip(columns, cells):
            if not _CELL.match(cell) or cell == "X":
                continue
            if not column.startswith("GPU"):
                nic = nic_names.get(column, column)
                ctx.emit(TopoNic, number, line, gpu=gpu, nic=nic, link=cell, path=path_of(cell))
                continue
            other = int(column[3:]) if column[3:].isdigit() else -1
            if other <= gpu:
                continue
            nvlinks = int(cell[2:]) if cell.startswith("NV") else 0
            ctx.emit(TopoLink, number, line, gpu_a=gpu, gpu_b=other, link=cell, path=path_of(cell), nvlinks=nvlinks)
