"""From one rank's reduced trace to figures: per step (compute, communication, exposed communication, idle and
where it sits, DataLoader, host-to-device copies) and over the trace (HolisticTraceAnalysis' temporal
breakdown and communication/computation overlap, same definitions, so the two can be compared).

On a GPU trace compute and communication are GPU kernels; a kernel belongs to the step whose CPU launched it.
On a CPU-only trace (gloo) they are CPU ops and gloo transfers; the calling thread blocked in a collective op
is communication, not compute.
"""
from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import dataclass, field

from doctor.traces.events import COMM, COMPUTE
from doctor.traces.rank import Comm, RankTrace, Step
from doctor.traces.timebits import TimeBits
from doctor.traces.totals import Bandwidth, Group, HtaTotals, best_bandwidth, hta_totals

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
class RankFigures:
    device: str
    steps: list[StepFigures] = field(default_factory=list)
    hta: HtaTotals | None = None
    comms: list[tuple[int, Comm]] = field(default_factory=list)     # (step number, collective), in order
    bandwidth: Bandwidth | None = None


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
    figures.comms = _comms(trace, steps, locate)
    if gpu:
        _gpu_steps(trace, steps, locate, figures)
    else:
        _cpu_steps(trace, steps, figures)
    figures.bandwidth = best_bandwidth(figures.comms)
    return figures


def _cpu_steps(trace: RankTrace, steps: list[Step], figures: RankFigures) -> None:
    _copies_and_top(trace, steps, _Locator(steps), figures)
    compute = trace.busy.minus(trace.blocked, trace.loader)
    comm = trace.transfer.union(trace.blocked)
    active = compute.union(comm, trace.loader)
    for st, s in zip(figures.steps, steps):
        st.span_us = st.step_us
        st.compute_us = compute.count(s.start, s.end)
        st.comm_us = comm.count(s.start, s.end)
        st.exposed_us = comm.count_minus(compute, lo=s.start, hi=s.end)
        st.idle_us = (s.end - s.start) - active.count(s.start, s.end)


def _gpu_steps(trace: RankTrace, steps: list[Step], locate: _Locator, figures: RankFigures) -> None:
    """HTA's window in one pass over the kernels; then each step's kernels on their own (memory: one step)."""
    filtering = sum(s.profiler for s in steps) >= 2
    last_start = steps[-1].start if steps else 0
    window = Group()
    by_step: list[array] = [array("l") for _ in steps]
    for j in range(len(trace.k_start)):
        launch = trace.launches.get(trace.k_corr[j]) if trace.k_corr[j] >= 0 else None
        where = locate(launch if launch is not None else trace.k_start[j])
        if not filtering or (launch is not None and launch < last_start):      # HTA's window
            _add(window, trace, j)
        if 0 <= where < len(steps):
            by_step[where].append(j)
    prev_end: int | None = None
    for st, s, members in zip(figures.steps, steps, by_step):
        group = Group()
        for j in members:
            _add(group, trace, j)
        prev_end = _step_figures(st, s, group, prev_end)
    _copies_and_top(trace, steps, locate, figures)
    figures.hta = hta_totals(window)


def _add(group: Group, trace: RankTrace, j: int) -> None:
    start, end, klass = trace.k_start[j], trace.k_end[j], trace.k_class[j]
    group.all.add(start, end)
    if klass == COMPUTE:
        group.compute.add(start, end)
    elif klass == COMM:
        group.comm.add(start, end)


def _step_figures(st: StepFigures, s: Step, group: Group, prev_end: int | None) -> int | None:
    """Fill one step's GPU figures; returns the end of its last kernel (the next step's reference)."""
    bounds = group.all.bounds()
    if bounds is None:
        st.span_us = st.step_us
        return prev_end
    first, last = bounds
    begin = min(s.start if prev_end is None else prev_end, first)
    st.span_us = max(st.step_us, last - begin)
    st.compute_us, st.comm_us = group.compute.count(), group.comm.count()
    st.exposed_us = group.comm.count_minus(group.compute)
    st.idle_us = (last - begin) - group.all.count()
    st.idle_before_us = max(0, first - begin)
    return last


def _copies_and_top(trace: RankTrace, steps: list[Step], locate: _Locator, figures: RankFigures) -> None:
    for c in trace.copies:
        launch = trace.launches.get(c.corr) if c.corr >= 0 else None
        i = locate(launch if launch is not None else c.start)
        if 0 <= i < len(steps):
            figures.steps[i].h2d_us += c.end - c.start
            figures.steps[i].h2d_bytes += max(c.nbytes, 0.0)
    by_number = {st.number: st for st in figures.steps}
    for number, c in figures.comms:
        st = by_number.get(number)
        if st is not None and c.end - c.start > st.top_comm_us:
            st.top_comm, st.top_comm_us = c.name, c.end - c.start


def _comms(trace: RankTrace, steps: list[Step], locate: _Locator) -> list[tuple[int, Comm]]:
    out: list[tuple[int, Comm]] = []
    for c in trace.comms:
        launch = trace.launches.get(c.corr) if c.corr >= 0 else None
        i = locate(launch if launch is not None else c.start)
        if 0 <= i < len(steps):
            out.append((steps[i].number, c))
    out.sort(key=lambda item: (item[1].start, item[1].index))
    return out
