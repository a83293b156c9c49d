"""Judge measurements against expectations: every benchmark or profile figure that has an expectation for its
metric becomes a bench.verdict with both figures, so a rule can say "expected X, measured Y".

Which expectation applies: one scoped to the sample (its node, device or peer) before a job-wide one, and
among those the user's (`--expect`, an expectations file) before one derived from topology. Share metrics
from profiles have a default ceiling (DEFAULT_CEILINGS) when nobody gave one; bandwidth has none, because
only the user or the topology knows what the link is.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from doctor.facts import Fact, Origin
from doctor.facts.measure import (METRICS, BandwidthSample, BenchExpectation, BenchVerdict, CollectiveSize, GpuIdle,
                                  KernelShare, LatencySample)
from doctor.facts.topo import CollectiveBench

USER_PROBES = ("expect", "expectations")
DEFAULT_CEILINGS = {"nccl_kernel_share": 0.4, "gpu_idle_share": 0.2}


def _of(facts: Iterable[Fact], cls: type[Fact]) -> list:
    return [f for f in facts if isinstance(f, cls)]


class _Book:
    """The expectations at hand, by metric."""

    def __init__(self, facts: list[Fact]) -> None:
        self.by_metric: dict[str, list[BenchExpectation]] = defaultdict(list)
        for e in _of(facts, BenchExpectation):
            if e.value > 0:
                self.by_metric[e.metric].append(e)
        for metric, value in DEFAULT_CEILINGS.items():
            if not self.by_metric.get(metric):
                self.by_metric[metric].append(BenchExpectation(
                    origin=Origin("doctor default", 0, "", "verdicts"), metric=metric, value=value, unit="share",
                    basis=f"doctor's default ceiling; set your own with --expect {metric}=..."))

    def pick(self, metric: str, *scopes: str) -> BenchExpectation | None:
        candidates = self.by_metric.get(metric, [])
        wanted = {s for s in scopes if s}

        def key(e: BenchExpectation) -> tuple[int, int]:
            return (e.scope in wanted, e.origin.probe in USER_PROBES)
        usable = [e for e in candidates if not e.scope or e.scope in wanted]
        return max(usable, key=key) if usable else None


def _verdict(sample: Fact, exp: BenchExpectation, metric: str, tool: str, measured: float, subject: str,
             multi_node: bool = True, hosts: int = -1) -> BenchVerdict | None:
    if measured <= 0 or exp.value <= 0:
        return None
    ceiling = METRICS.get(metric, ("", "floor"))[1] == "ceiling"
    ratio = exp.value / measured if ceiling else measured / exp.value
    unit = exp.unit or METRICS[metric][0]
    return BenchVerdict(node=sample.node, rank=sample.rank, origin=sample.origin, metric=metric, tool=tool,
                        measured=round(measured, 3), expected=round(exp.value, 3), unit=unit, ratio=round(ratio, 3),
                        percent=round(ratio * 100), measured_text=shown(measured, unit),
                        expected_text=shown(exp.value, unit), basis=exp.basis, subject=subject, multi_node=multi_node,
                        hosts=hosts)


def shown(value: float, unit: str) -> str:
    """How the report prints a figure: 0.79 Gbit/s, 61%, 2.1 us."""
    if unit == "share":
        return f"{value * 100:.0f}%"
    return f"{value:.4g} {unit}"


def _bandwidth(book: _Book, facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    samples = _of(facts, BandwidthSample)
    for s in samples:
        exp = book.pick(s.metric, s.node, s.device, s.peer)
        where = s.path or (f"{s.node} -> {s.peer}" if s.peer else (s.device or s.node))
        subject = f"{where} ({'GPU' if s.gpu else 'host'} memory)" if s.metric == "rdma_gbps" else where
        if exp and (v := _verdict(s, exp, s.metric, s.tool, s.gbps, subject)):
            out.append(v)
    out.extend(_gpu_against_host(samples))
    return out


def _gpu_against_host(samples: list[BandwidthSample]) -> list[Fact]:
    """perftest with --use_cuda against the same test from host memory: the GPU path should keep up."""
    out: list[Fact] = []
    host = {(s.tool, s.device): s for s in samples if s.metric == "rdma_gbps" and not s.gpu and s.gbps > 0}
    for s in samples:
        ref = host.get((s.tool, s.device))
        if s.metric != "rdma_gbps" or not s.gpu or ref is None:
            continue
        exp = BenchExpectation(origin=ref.origin, metric="rdma_gbps", value=ref.gbps, unit="Gbit/s",
                               basis=f"the same {ref.tool} from host memory on {ref.device or ref.node} "
                                     f"({ref.origin.where()})")
        if (v := _verdict(s, exp, "rdma_gbps_gpu", s.tool, s.gbps, f"{s.device or s.node} GPU memory vs host memory")):
            out.append(v)
    return out


def _latency(book: _Book, facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    for s in _of(facts, LatencySample):
        exp = book.pick("rdma_lat_us", s.node, s.device)
        if exp and (v := _verdict(s, exp, "rdma_lat_us", s.tool, s.typical_us, s.device or s.node)):
            out.append(v)
    return out


def _collectives(book: _Book, facts: list[Fact]) -> list[Fact]:
    """The best bus bandwidth of each nccl-tests run (its large messages) against busbw_gbs."""
    runs = {f.origin.source: f for f in _of(facts, CollectiveBench)}
    best: dict[tuple[str, str], CollectiveSize] = {}
    for s in _of(facts, CollectiveSize):
        key = (s.origin.source, s.op)
        if key not in best or s.busbw > best[key].busbw:
            best[key] = s
    out: list[Fact] = []
    for (source, op), s in sorted(best.items()):
        exp = book.pick("busbw_gbs", s.node)
        subject = f"{op or 'collective'} at {s.size} bytes"
        run = runs.get(source)
        if exp and (v := _verdict(s, exp, "busbw_gbs", "nccl-tests", s.busbw, subject, bool(run and run.multi_node),
                                  run.hosts if run else -1)):
            out.append(v)
    return out


def _profiles(book: _Book, facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    for k in _of(facts, KernelShare):
        exp = book.pick("nccl_kernel_share", k.node)
        if exp and k.nccl_share > 0 and (v := _verdict(k, exp, "nccl_kernel_share", "nsys", k.nccl_share,
                                                        f"NCCL kernels ({k.top_nccl or 'nccl'}) of all GPU kernel time")):
            out.append(v)
    for g in _of(facts, GpuIdle):
        exp = book.pick("gpu_idle_share", g.node)
        if exp and g.idle_share > 0 and (v := _verdict(g, exp, "gpu_idle_share", "nsys", g.idle_share,
                                                        f"GPU idle over a {g.span_s:.3f}s trace")):
            out.append(v)
    return out


def bench_verdicts(facts: list[Fact]) -> list[Fact]:
    book = _Book(facts)
    return [*_bandwidth(book, facts), *_latency(book, facts), *_collectives(book, facts), *_profiles(book, facts)]
