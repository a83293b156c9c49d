"""Whole-trace figures: HolisticTraceAnalysis' temporal breakdown and overlap, and the best collective bandwidth.

HTA (hta/analyzers/breakdown_analysis.py, communication_analysis.py) measures over the kernels launched before
the last ProfilerStep: the span from the first kernel's start to the last one's end; idle is the span minus
the union of all kernels, compute the union of compute kernels, non-compute the rest; overlap is the share of
the communication union that has compute beside it. Same unions here, from microsecond bitsets.
"""
from __future__ import annotations

from dataclasses import dataclass

from doctor.traces.events import bus_factor
from doctor.traces.rank import Comm
from doctor.traces.timebits import TimeBits

LARGE_MESSAGE = 8 * 2**20            # bandwidth is judged on messages of at least this size


class Group:
    """Kernels as unions: all of them, compute kernels, communication kernels."""

    __slots__ = ("all", "compute", "comm")

    def __init__(self) -> None:
        self.all, self.compute, self.comm = TimeBits(), TimeBits(), TimeBits()


@dataclass
class HtaTotals:
    kernel_time_us: int
    idle_pct: float
    compute_pct: float
    non_compute_pct: float
    comm_pct: float                  # communication kernels running, share of the span
    overlap_pct: float               # -1 when there is no communication


@dataclass
class Bandwidth:
    step: int
    index: int
    name: str
    kind: str
    nbytes: float
    busbw_gbps: float
    group: int


def hta_totals(window: Group) -> HtaTotals | None:
    """HTA's temporal breakdown and overlap of the kernels in its window; None without kernels."""
    bounds = window.all.bounds()
    if bounds is None:
        return None
    span = bounds[1] - bounds[0]
    idle = span - window.all.count()
    busy_compute = window.compute.count()
    comm_total = window.comm.count()
    overlap = 100.0 * window.comm.count_and(window.compute) / comm_total if comm_total else -1.0
    pct = (lambda v: 100.0 * v / span) if span else (lambda v: 0.0)
    return HtaTotals(span, pct(idle), pct(busy_compute), pct(span - busy_compute - idle), pct(comm_total), overlap)


def best_bandwidth(comms: list[tuple[int, Comm]]) -> Bandwidth | None:
    """The NCCL collective of at least LARGE_MESSAGE bytes with the highest bus bandwidth (least waiting)."""
    best: Bandwidth | None = None
    for step, c in comms:
        seconds = (c.end - c.start) / 1e6
        if c.nbytes < LARGE_MESSAGE or seconds <= 0 or c.corr < 0:
            continue
        busbw = c.nbytes / seconds * bus_factor(c.kind, c.group) / 1e9
        if best is None or busbw > best.busbw_gbps:
            best = Bandwidth(step, c.index, c.name, c.kind, c.nbytes, busbw, c.group)
    return best
