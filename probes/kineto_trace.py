"""torch.profiler / Kineto chrome traces (.json or .json.gz, one per rank, PyTorch 1.10-2.x, CPU or GPU), streamed.

Recognised by content: a JSON object whose head names traceEvents, schemaVersion or deviceProperties.
Sample head:
    {
      "schemaVersion": 1,
      "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", ...}],
      "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 8, ...},
      "traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 7, "tid": 7, "ts": 5355985220094.9, "dur": 3343.3},
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "args": {"correlation": 812, ...}},
        ...

Yields per step (trace.step), per rank (trace.rank, trace.collectives, trace.collective_bw); the cross-rank
facts (skew, stragglers, absent ranks) come from doctor/traces/skew.py once every rank's trace is read.
"""
from __future__ import annotations

from statistics import median
from typing import BinaryIO

from doctor.facts.perf import CollectiveBandwidth, TraceCollectives, TraceRank, TraceStep
from doctor.facts.status import ProbeStatus
from doctor.probing.contract import ParseContext
from doctor.probing.stream import StreamProbe, StreamRefused
from doctor.traces.figures import RankFigures, StepFigures, finish
from doctor.traces.links import link_class
from doctor.traces.rank import RankTrace
from doctor.traces.reader import ReadState, TraceMeta, looks_like_trace, open_trace

MAX_STEP_FACTS = 200
MAX_COLLECTIVES = 20_000


class KinetoTrace(StreamProbe):
    name = "kineto_trace"
    yields = ("trace.step", "trace.rank", "trace.collectives", "trace.collective_bw")

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        return looks_like_trace(head)

    def read(self, stream: BinaryIO, ctx: ParseContext) -> None:
        meta, events, state = open_trace(stream, ctx.source)
        trace = RankTrace()
        add = trace.add
        for index, event in enumerate(events, start=1):
            add(index, event)
        if state.events == 0:
            raise StreamRefused(f"not a readable trace: {state.error or 'traceEvents is empty'}")
        figures = finish(trace)
        if not figures.steps:
            raise StreamRefused(f"no timed events among {state.events} trace events")
        emit_facts(ctx, meta, figures, state)


def emit_facts(ctx: ParseContext, meta: TraceMeta, figures: RankFigures, state: ReadState) -> None:
    node, rank = meta.host or ctx.node, meta.rank
    for st in figures.steps[:MAX_STEP_FACTS]:
        ctx.emit(TraceStep, st.index, _step_line(st, rank, figures.device), node=node, rank=rank, **_step_values(st, figures.device))
    _emit_rank(ctx, meta, figures, state, node)
    comms = figures.comms[:MAX_COLLECTIVES]
    if comms:
        ctx.emit(TraceCollectives, comms[0][1].index, f"rank {rank}: {len(comms)} collectives in {len(figures.steps)} steps",
                 node=node, rank=rank, steps=tuple(s for s, _ in comms), ops=tuple(c.kind for _, c in comms),
                 names=tuple(c.name for _, c in comms), events=tuple(c.index for _, c in comms),
                 durations_ms=tuple(round((c.end - c.start) / 1000, 3) for _, c in comms),
                 step_ms=_ms(median(s.step_us for s in figures.steps)),
                 dataloader_frac=_median_frac(figures.steps, "loader_us"))
    _emit_bandwidth(ctx, meta, figures, node)
    if state.error:
        ctx.emit(ProbeStatus, 0, "", node=node, rank=rank, probe=ctx.probe, status="ok",
                 reason=f"{ctx.source}: {state.error}; figures cover the events read")


def _ms(us: float) -> float:
    return round(us / 1000, 2)


def _frac(part: float, whole: float) -> float:
    return round(part / whole, 4) if whole > 0 else -1.0


def _median_frac(steps: list[StepFigures], name: str) -> float:
    return round(median(_frac(getattr(s, name), s.span_us) for s in steps), 4)


def _step_values(st: StepFigures, device: str) -> dict[str, object]:
    return dict(step=st.number, device=device, step_ms=_ms(st.step_us), compute_ms=_ms(st.compute_us),
                comm_ms=_ms(st.comm_us), exposed_comm_ms=_ms(st.exposed_us), idle_ms=_ms(st.idle_us),
                idle_before_ms=_ms(st.idle_before_us), dataloader_ms=_ms(st.loader_us), h2d_ms=_ms(st.h2d_us),
                h2d_bytes=float(st.h2d_bytes), compute_frac=_frac(st.compute_us, st.span_us),
                exposed_comm_frac=_frac(st.exposed_us, st.span_us), idle_frac=_frac(st.idle_us, st.span_us),
                idle_before_frac=_frac(st.idle_before_us, st.span_us),
                dataloader_frac=_frac(st.loader_us, st.span_us), top_comm=st.top_comm)


def _step_line(st: StepFigures, rank: int, device: str) -> str:
    where = "GPU" if device == "gpu" else "CPU"
    text = (f"step {st.number} of rank {rank}: {_ms(st.step_us)} ms; compute {_ms(st.compute_us)} ms, "
            f"communication {_ms(st.comm_us)} ms ({_ms(st.exposed_us)} ms exposed), {where} idle {_ms(st.idle_us)} ms")
    if device == "gpu":
        text += f" ({_ms(st.idle_before_us)} ms before the first kernel)"
    text += f", DataLoader {_ms(st.loader_us)} ms"
    if st.h2d_us:
        text += f", host-to-device copies {_ms(st.h2d_us)} ms"
    if st.top_comm:
        text += f"; longest collective {st.top_comm} {_ms(st.top_comm_us)} ms"
    return text


def _emit_rank(ctx: ParseContext, meta: TraceMeta, figures: RankFigures, state: ReadState, node: str) -> None:
    steps = figures.steps
    loader = max(steps, key=lambda s: s.loader_us)
    exposed = max(steps, key=lambda s: s.exposed_us)
    hta = figures.hta
    values = dict(
        device=figures.device, backend=meta.backend, world_size=meta.world_size,
        gpu_name=meta.gpu_names[0] if meta.gpu_names else "", local_gpus=len(meta.gpu_names), steps=len(steps),
        step_ms=_ms(median(s.step_us for s in steps)), compute_frac=_median_frac(steps, "compute_us"),
        comm_frac=_median_frac(steps, "comm_us"), exposed_comm_frac=_median_frac(steps, "exposed_us"),
        idle_frac=_median_frac(steps, "idle_us"), idle_before_frac=_median_frac(steps, "idle_before_us"),
        dataloader_frac=_median_frac(steps, "loader_us"), h2d_frac=_median_frac(steps, "h2d_us"),
        dataloader_step=loader.number, dataloader_ms=_ms(loader.loader_us), exposed_step=exposed.number,
        exposed_comm_ms=_ms(exposed.exposed_us), top_comm=exposed.top_comm, events=state.events,
        truncated=bool(state.error),
        hta_idle_pct=round(hta.idle_pct, 2) if hta else -1.0, hta_compute_pct=round(hta.compute_pct, 2) if hta else -1.0,
        hta_non_compute_pct=round(hta.non_compute_pct, 2) if hta else -1.0,
        hta_comm_pct=round(hta.comm_pct, 2) if hta else -1.0,
        overlap_pct=round(hta.overlap_pct, 2) if hta else -1.0)
    line = (f"rank {meta.rank} ({figures.device} trace, {len(steps)} steps, median {values['step_ms']} ms): "
            f"compute {values['compute_frac']:.0%}, exposed communication {values['exposed_comm_frac']:.0%}, "
            f"idle {values['idle_frac']:.0%}, DataLoader {values['dataloader_frac']:.0%} of the step")
    ctx.emit(TraceRank, steps[0].index, line, node=node, rank=meta.rank, **values)


def _emit_bandwidth(ctx: ParseContext, meta: TraceMeta, figures: RankFigures, node: str) -> None:
    bw = figures.bandwidth
    if bw is None:
        return
    gpu = meta.gpu_names[0] if meta.gpu_names else ""
    link, link_gbps = link_class(gpu)
    group = bw.group if bw.group > 0 else meta.world_size
    single = 0 < group <= len(meta.gpu_names)
    line = (f"rank {meta.rank}, step {bw.step}: the fastest large {bw.kind}, {bw.name} on {bw.nbytes / 2**20:.0f} MiB, "
            f"reached {bw.busbw_gbps:.1f} GB/s "
            f"bus bandwidth; {gpu or 'this GPU'} ({link}) carries about {link_gbps:g} GB/s")
    ctx.emit(CollectiveBandwidth, bw.index, line, node=node, rank=meta.rank, step=bw.step, kernel=bw.name, op=bw.kind,
             bytes=bw.nbytes, busbw_gbps=round(bw.busbw_gbps, 2), link=link, link_gbps=link_gbps,
             link_frac=round(bw.busbw_gbps / link_gbps, 4) if link_gbps > 0 else -1.0, group_size=group,
             local_gpus=len(meta.gpu_names), single_node=single)
