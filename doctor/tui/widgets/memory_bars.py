"""An OOM as one stacked bar of the GPU's memory: allocated, reserved but unused, held outside, free."""
from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from doctor.facts.gpu import OomEvent

GIB = 2**30


@dataclass(frozen=True)
class Part:
    name: str
    gib: float
    style: str
    meaning: str


def parts(oom: OomEvent) -> list[Part]:
    """The known shares of total memory, in GiB; whatever the message did not say is left out."""
    out: list[Part] = []
    if oom.allocated >= 0:
        out.append(Part("allocated", oom.allocated / GIB, "$primary", "tensors PyTorch holds"))
    if oom.reserved >= 0 and oom.allocated >= 0:
        out.append(Part("reserved, unused", max(0.0, oom.reserved - oom.allocated) / GIB, "$warning",
                        "cached by the allocator, not in use (fragmentation)"))
    if oom.outside >= 0:
        out.append(Part("outside", oom.outside / GIB, "$error", "other processes, CUDA context, NCCL buffers"))
    if oom.free >= 0:
        out.append(Part("free", oom.free / GIB, "$success", "what the driver had left"))
    return out


def bar(oom: OomEvent, width: int) -> Content:
    total = oom.total / GIB if oom.total > 0 else sum(p.gib for p in parts(oom))
    if total <= 0:
        return Content.styled("the message gave no figures", "$text-muted")
    cells: list[tuple[str, str]] = []
    used = 0
    for p in parts(oom):
        n = min(width - used, round(p.gib / total * width))
        if n == 0 and p.gib > 0 and used < width:
            n = 1
        cells.append(("█" * n, p.style))
        used += n
    cells.append(("░" * (width - used), "$text-muted"))
    return Content.assemble(*cells)


def legend(oom: OomEvent) -> Content:
    total = oom.total / GIB if oom.total > 0 else 0
    rows = []
    for p in parts(oom):
        share = f"{p.gib / total * 100:5.1f}%" if total else "     "
        rows.append(Content.assemble(("██ ", p.style), (f"{p.name:<17}", "bold"), f"{p.gib:8.2f} GiB {share}  ",
                                     (p.meaning, "$text-muted")))
    if oom.requested >= 0:
        rows.append(Content.assemble(("▲  ", "bold"), (f"{'tried to allocate':<17}", "bold"),
                                     f"{oom.requested / GIB:8.2f} GiB", ("  the request that failed", "$text-muted")))
    return Content("\n").join(rows)


class MemoryBars(Widget):
    """One OOM event: heading, bar, legend."""

    DEFAULT_CSS = "MemoryBars { height: auto; }"
    oom: reactive[OomEvent | None] = reactive(None, layout=True)

    def __init__(self, oom: OomEvent, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(MemoryBars.oom, oom)

    def render(self) -> Content:
        oom = self.oom
        if oom is None:
            return Content("")
        device = f"GPU {oom.device}" if oom.device >= 0 else "GPU ?"
        rank = f" · rank {oom.rank}" if oom.rank >= 0 else ""
        total = f" · total {oom.total / GIB:.2f} GiB" if oom.total > 0 else ""
        heading = Content.assemble((device, "bold"), rank, total, ("  " + oom.origin.where(), "$text-muted"))
        width = max(10, self.size.width - 2)
        return Content("\n").join([heading, bar(oom, width), legend(oom)])
