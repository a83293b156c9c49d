"""Tensors printed on two GPUs in a row: a copy between GPUs that arrived without its data.

Peer-to-peer DMA that the IOMMU or a PCIe switch's ACS blocks does not fail: the reads return zeros (or whatever
the destination held), so `x.to(1)` of a tensor on cuda:0 prints zeros on cuda:1, while the same tensor staged
through the CPU (`x.to('cpu').to(1)`) arrives intact (pytorch#84803; dasharo-issues#436, fixed by iommu=soft).
A one-line tensor printed on cuda:A, and within a few lines the same number of values on cuda:B (B != A) by the same
writer (two ranks' prints are two tensors), all zero or denormal where the first had values, is read as such a copy.

Sample input:
    >>> x = torch.tensor([1, 2], device=0)
    tensor([1, 2], device='cuda:0')
    >>> x.to(1)
    tensor([0, 0], device='cuda:1')
"""
from __future__ import annotations

from doctor.facts.topo import P2pCopyCorrupted
from doctor.probing.contract import LineProbe
from doctor.probing.lines import who
from doctor.probing.regex import lazy_compile

_TENSOR = lazy_compile(r"\btensor\(\[(?P<values>[^\[\]]*)\](?:,\s*dtype=[\w.]+)?,\s*device='cuda:(?P<device>\d+)'")
WITHIN_LINES = 6               # the copy's print follows the source's within this many lines (a REPL's input between)
DUST = 1e-30                   # a value this small is uninitialised memory read as a float, not data


def _values(text: str) -> tuple[float, ...] | None:
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:          # '...' of a long tensor, nan/inf spelt otherwise: not a small literal tensor
        return None


class TensorCopies(LineProbe):
    name = "tensor_copies"
    yields = ("p2p.copy_corrupted",)
    triggers = ("device='cuda:",)

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        # per writer (node, rank): the last tensor printed: line, device, text, values
        self.last: dict[tuple[str, int], tuple[int, int, str, tuple[float, ...]]] = {}

    def feed(self, line_no: int, line: str) -> None:
        m = _TENSOR.search(line)
        values = _values(m["values"]) if m else None
        if m is None or not values:
            return
        device = int(m["device"])
        writer = who(line, self.ctx.node)
        key = (writer.node, writer.rank)
        last = self.last.get(key)
        if last and self._zeroed_copy(last, line_no, device, values):
            self.ctx.emit(P2pCopyCorrupted, line_no, line, src_device=last[1], dst_device=device,
                          sent=last[2].strip(), arrived=m["values"].strip())
        self.last[key] = (line_no, device, m["values"], values)

    @staticmethod
    def _zeroed_copy(last: tuple[int, int, str, tuple[float, ...]], line_no: int, device: int,
                     values: tuple[float, ...]) -> bool:
        at, src_device, _, sent = last
        return (device != src_device and line_no - at <= WITHIN_LINES and len(values) == len(sent)
                and any(abs(v) > DUST for v in sent) and all(abs(v) <= DUST for v in values))
