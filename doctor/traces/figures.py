"""From one rank's reduced trace to figures: per step (compute, communication, exposed communication, idle and
where it sits, DataLoader, host-to-device copies) and over the trace (HolisticTraceAnalysis' temporal
breakdown and communication/computation overlap, same definitions, so the two can be compared).

On a GPU trace compute and communication are GPU kernels; a kernel belongs to the step whose CPU launched it.
On a CPU-only trace (gloo) they are CPU ops and gloo transfers; the calling thread blocked in a collective op
is communication, not compute.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from doctor.traces.events import COMM, COMPUTE, bus_factor
from doctor.traces.rank import Comm, RankTrace, Step
from doctor.traces.timebits import TimeBits

LARGE_MESSAGE = 8 * 2**20            # bandwidth is judged on messages of at least this size


@dataclass
class StepFigures:
    number: int
    index: int
    step_us: int
    span_us: int = 0                 # the denominator of fractions: the step, or its GPU span when longer
    compute_us: int = 0
    comm_us: int = 0
    exposed_us: int = 0
    idle_us: int = 0
    idle_before_us: int = 0
    loader_us: int = 0
    h2d_us: int = 0
    h2d_bytes: float = 0.0
    top_comm: str = ""
    top_comm_us: int = 0


@dataclass
class HtaTotals:
    kernel_time_us: int
    idle_pct: float
    compute_pct: float
    non_compute_pct: float
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


@dataclass
class RankFigures:
    device: str
    steps: list[StepFigures] = field(default_factory=list)
    hta: HtaTotals | None = None
    comms: list[tuple[int, Comm]] = field(default_factory=list)     # (step number, collective), in order
    bandwidth: Bandwidth | None = None


class _Group:
    """The kernels of one step: unions of all, compute and communication kernels."""

    __slots__ = ("all", "compute", "comm")

    def __init__(self) -> None:
        self.all, self.compute, self.comm = TimeBits(), TimeBits(), TimeBits()


def choose_steps(trace: RankTrace) -> list[Step]:
    """ProfilerStep markers when present, else record_function step markers, else one step over everything."""
    marked = [s for s in trace.steps if s.profiler] or list(trace.steps)
    best: dict[int, Step] = {}
    for s in marked:
        if s.number not in best or s.end - s.start > best[s.number].end - best[s.number].start:
            best[s.number] = s
    if best:
        return sorted(best.values(), key=lambda s: s.start)
    bounds = trace.busy.union(trace.blocked, trace.transfer, trace.loader).bounds()
    if trace.k_start:
        lo, hi = min(trace.k_start), max(trace.k_end)
        bounds = (min(lo, bounds[0]), max(hi, bounds[1])) if bounds else (lo, hi)
    return [Step(0, bounds[0], bounds[1], 0, False)] if bounds else []


class _Locator:
    """Which step a CPU time falls in: the last step started by then; -1 before the first or after the last."""

    def __init__(self, steps: list[Step]) -> None:
        self.starts = [s.start for s in steps]
        self.last_end = steps[-1].end if steps else 0

    def __call__(self, t: float) -> int:
        i = bisect_right(self.starts, t) - 1
        if i == len(self.starts) - 1 and t >= self.last_end:
            return len(self.starts)
        return i


def finish(trace: RankTrace) -> RankFigures:
    steps = choose_steps(trace)
    locate = _Locator(steps)
    gpu = len(trace.k_start) > 0
    figures = RankFigures(device="gpu" if gpu else "cpu")
    figures.steps = [StepFigures(s.number, s.index, s.end - s.start) for s in steps]
    for st, s in zip(figures.steps, steps):
        st.loader_us = trace.loader.count(s.start, s.end)
    if gpu:
        _gpu_steps(trace, steps, locate, figures)
    else:
        _cpu_steps(trace, steps, figures)
    figures.comms = _comms(trace, steps, locate)
    figures.bandwidth = _best_bandwidth(figures.comms)
    return figures


def _cpu_steps(trace: RankTrace, steps: list[Step], figures: RankFigures) -> None:
    compute = trace.busy.minus(trace.blocked, trace.loader)
    comm = trace.transfer.union(trace.blocked)
    active = compute.union(comm, trace.loader)
    for st, s in zip(figures.steps, steps):
        st.span_us = st.step_us
        st.compute_us = compute.count(s.start, s.end)
        st.comm_us = comm.count(s.start, s.end)
        st.exposed_us = comm.count_minus(compute, lo=s.start, hi=s.end)
        st.idle_us = (s.end - s.start) - active.count(s.start, s.end)
        mine = [c for c in trace.comms if s.start <= c.start < s.end]
        if mine:
            top = max(mine, key=lambda c: c.end - c.start)
            st.top_comm, st.top_comm_us = top.name, top.end - top.start


def _gpu_steps(trace: RankTrace, steps: list[Step], locate: _Locator, figures: RankFigures) -> None:
    filtering = sum(s.profiler for s in steps) >= 2
    last_start = steps[-1].start if steps else 0
    groups: dict[tuple[int, bool], _Group] = {}
    for j in range(len(trace.k_start)):
        launch = trace.launches.get(trace.k_corr[j]) if trace.k_corr[j] >= 0 else None
        where = locate(launch if launch is not None else trace.k_start[j])
        counted = not filtering or (launch is not None and launch < last_start)   # HTA's window
        group = groups.get((where, counted))
        if group is None:
            group = groups[(where, counted)] = _Group()
        start, end, klass = trace.k_start[j], trace.k_end[j], trace.k_class[j]
        group.all.add(start, end)
        if klass == COMPUTE:
            group.compute.add(start, end)
        elif klass == COMM:
            group.comm.add(start, end)
    _per_step(trace, steps, locate, groups, figures)
    figures.hta = _hta([g for (_, counted), g in groups.items() if counted])


def _per_step(trace: RankTrace, steps: list[Step], locate: _Locator, groups: dict[tuple[int, bool], _Group],
              figures: RankFigures) -> None:
    prev_end: int | None = None
    for i, (st, s) in enumerate(zip(figures.steps, steps)):
        parts = [g for (where, _), g in groups.items() if where == i]
        union = TimeBits().union(*(g.all for g in parts)) if parts else TimeBits()
        bounds = union.bounds()
        if bounds is None:
            st.span_us = st.step_us
            continue
        first, last = bounds
        begin = s.start if prev_end is None else prev_end
        begin = min(begin, first)
        compute = TimeBits().union(*(g.compute for g in parts))
        comm = TimeBits().union(*(g.comm for g in parts))
        st.span_us = max(st.step_us, last - begin)
        st.compute_us, st.comm_us = compute.count(), comm.count()
        st.exposed_us = comm.count_minus(compute)
        st.idle_us = (last - begin) - union.count()
        st.idle_before_us = max(0, first - begin)
        prev_end = last
    for c in trace.copies:
        launch = trace.launches.get(c.corr) if c.corr >= 0 else None
        i = locate(launch if launch is not None else c.start)
        if 0 <= i < len(steps):
            figures.steps[i].h2d_us += c.end - c.start
            figures.steps[i].h2d_bytes += max(c.nbytes, 0.0)
    for where, c in _comms(trace, steps, locate):
        st = next((x for x in figures.steps if x.number == where), None)
        if st is not None and c.end - c.start > st.top_comm_us:
            st.top_comm, st.top_comm_us = c.name, c.end - c.start


def _hta(groups: list[_Group]) -> HtaTotals | None:
    if not groups:
        return None
    every = TimeBits().union(*(g.all for g in groups))
    bounds = every.bounds()
    if bounds is None:
        return None
    span = bounds[1] - bounds[0]
    compute = TimeBits().union(*(g.compute for g in groups))
    comm = TimeBits().union(*(g.comm for g in groups))
    idle = span - every.count()
    busy_compute = compute.count()
    comm_total = comm.count()
    overlap = 100.0 * comm.count_and(compute) / comm_total if comm_total else -1.0
    pct = (lambda v: 100.0 * v / span) if span else (lambda v: 0.0)
    return HtaTotals(span, pct(idle), pct(busy_compute), pct(span - busy_compute - idle), overlap)


def _comms(trace: RankTrace, steps: list[Step], locate: _Locator) -> list[tuple[int, Comm]]:
    out: list[tuple[int, Comm]] = []
    for c in trace.comms:
        launch = trace.launches.get(c.corr) if c.corr >= 0 else None
        i = locate(launch if launch is not None else c.start)
        if 0 <= i < len(steps):
            out.append((steps[i].number, c))
    out.sort(key=lambda item: (item[1].start, item[1].index))
    return out


def _best_bandwidth(comms: list[tuple[int, Comm]]) -> Bandwidth | None:
    best: Bandwidth | None = None
    for step, c in comms:
        seconds = (c.end - c.start) / 1e6
        if c.nbytes < LARGE_MESSAGE or seconds <= 0 or c.corr < 0:
            continue
        busbw = c.nbytes / seconds * bus_factor(c.kind, c.group) / 1e9
        if best is None or busbw > best.busbw_gbps:
            best = Bandwidth(step, c.index, c.name, c.kind, c.nbytes, busbw, c.group)
    return best
