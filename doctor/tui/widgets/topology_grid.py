"""`nvidia-smi topo -m` as a coloured grid: one cell per GPU pair, NVLink green through cross-socket red."""
from __future__ import annotations

import re

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from doctor.facts.topo import TopoLink, TopoNic

CELL = 7
# link class -> (style, meaning), fastest first. Explicit colour pairs read the same on dark and light themes.
LINK_STYLES: dict[str, tuple[str, str]] = {
    "NV": ("bold #0b0b0b on #3fb950", "NVLink (NV# = bonded links)"),
    "PIX": ("#0b0b0b on #56d4dd", "one PCIe bridge"),
    "PXB": ("#0b0b0b on #79c0ff", "several PCIe bridges"),
    "PHB": ("#0b0b0b on #e3b341", "PCIe host bridge (the CPU)"),
    "NODE": ("#0b0b0b on #f0883e", "host bridges within a NUMA node"),
    "SYS": ("bold #ffffff on #cf222e", "across sockets (QPI/UPI)"),
}
SELF_STYLE = "$text-muted on $panel"


def link_class(link: str) -> str:
    return "NV" if re.fullmatch(r"NV\d+", link) else link


def matrix(links: list[TopoLink]) -> tuple[list[int], dict[tuple[int, int], str]]:
    gpus = sorted({l.gpu_a for l in links} | {l.gpu_b for l in links})
    cells: dict[tuple[int, int], str] = {}
    for l in links:
        cells[(l.gpu_a, l.gpu_b)] = cells[(l.gpu_b, l.gpu_a)] = l.link
    return gpus, cells


def _cell(link: str, self_cell: bool = False) -> list[tuple[str, str] | str]:
    style = SELF_STYLE if self_cell else LINK_STYLES.get(link_class(link), ("$text on $error-muted", ""))[0]
    return [(link.center(CELL - 1), style), " "]


def grid(links: list[TopoLink], nics: list[TopoNic] = ()) -> Content:
    """GPU x GPU cells, then (after a gap) GPU x NIC cells: NIC affinity."""
    gpus, cells = matrix(links)
    gpus = sorted(set(gpus) | {n.gpu for n in nics})
    nic_names = list(dict.fromkeys(n.nic for n in nics))
    nic_cells = {(n.gpu, n.nic): n.link for n in nics}
    gap = "  " if nic_names else ""
    lines = [Content.assemble(" " * CELL, *((f"GPU{g}".center(CELL), "bold") for g in gpus), gap,
                              *((name[:CELL - 1].center(CELL), "bold $text-secondary") for name in nic_names))]
    for a in gpus:
        row: list[Content | tuple[str, str] | str] = [(f"GPU{a}".ljust(CELL), "bold")]
        for b in gpus:
            row += _cell("X", True) if a == b else _cell(cells.get((a, b), "?"))
        row.append(gap)
        for name in nic_names:
            row += _cell(nic_cells.get((a, name), "?"))
        lines.append(Content.assemble(*row))
    return Content("\n").join(lines)


def nearest_nics(nics: list[TopoNic]) -> str:
    """Per GPU, the closest NIC(s): 'GPU0 → mlx5_0 (PXB)'."""
    order = list(LINK_STYLES)
    best: dict[int, list[TopoNic]] = {}
    for n in nics:
        rank = order.index(link_class(n.link)) if link_class(n.link) in order else len(order)
        current = best.get(n.gpu)
        current_rank = order.index(link_class(current[0].link)) if current and link_class(current[0].link) in order else 99
        if current is None or rank < current_rank:
            best[n.gpu] = [n]
        elif rank == current_rank:
            current.append(n)
    return "   ".join(f"GPU{g} → {'/'.join(n.nic for n in ns)} ({ns[0].link})" for g, ns in sorted(best.items()))


def legend(links: list[TopoLink]) -> Content:
    seen = {link_class(l.link) for l in links}
    rows = [Content.assemble((f" {name:^5}", style), (f" {meaning}", "" if name in seen else "$text-muted"))
            for name, (style, meaning) in LINK_STYLES.items()]
    return Content.assemble(("fastest", "italic $text-muted"), "\n", Content("\n").join(rows), "\n",
                            ("slowest", "italic $text-muted"))


def summary(links: list[TopoLink]) -> str:
    gpus, _ = matrix(links)
    by_class: dict[str, int] = {}
    for l in links:
        by_class[link_class(l.link)] = by_class.get(link_class(l.link), 0) + 1
    parts = [f"{by_class[k]} {k if k != 'NV' else 'NVLink'} pair{'s' if by_class[k] > 1 else ''}"
             for k in LINK_STYLES if k in by_class]
    return f"{len(gpus)} GPUs, {len(links)} pairs: " + ", ".join(parts)


class TopologyGrid(Widget):
    """One node's GPU pairs."""

    DEFAULT_CSS = "TopologyGrid { height: auto; width: auto; }"
    links: reactive[tuple[TopoLink, ...]] = reactive(tuple, layout=True)
    nics: reactive[tuple[TopoNic, ...]] = reactive(tuple, layout=True)

    def __init__(self, links: list[TopoLink], nics: list[TopoNic] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(TopologyGrid.links, tuple(links))
        self.set_reactive(TopologyGrid.nics, tuple(nics))

    def render(self) -> Content:
        return grid(list(self.links), list(self.nics)) if self.links or self.nics else Content("no GPU pairs")
