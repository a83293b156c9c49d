"""Across ranks: who arrives last at each collective, who never arrives, and the job's least exposed communication.

A collective is matched across ranks by (step, kind, n-th of that kind in the step). Clocks of different hosts
need not agree, so arrival order is read from durations, not timestamps: a blocking collective lasts until the
last rank joins, so the rank that arrived last spends the least time in it, and every other rank's extra time
is waiting for that rank.
"""
from __future__ import annotations

from collections import defaultdict
from statistics import median
from typing import Iterable

from doctor.facts import Fact
from doctor.facts.perf import CollectiveAbsent, TraceStraggler, TraceCollectives, TraceJob, TraceRank, TraceStep

STALL_MS = 1000.0            # a present rank sat this long in a collective its peer never entered ...
STALL_FACTOR = 10.0          # ... or this many times the usual duration of that collective

Key = tuple[int, str, int]   # (step, kind, n-th of the kind in the step)


def _of(facts: Iterable[Fact], cls: type[Fact]) -> list:
    return [f for f in facts if isinstance(f, cls)]


def trace_job(facts: list[Fact]) -> list[Fact]:
    """One trace.job fact over every rank's trace.rank: the least and most exposed communication."""
    ranks = {f.rank: f for f in _of(facts, TraceRank)}
    if not ranks:
        return []
    least = min(ranks.values(), key=lambda f: f.exposed_comm_frac)
    most = max(ranks.values(), key=lambda f: f.exposed_comm_frac)
    return [TraceJob(node=least.node, rank=-1, origin=most.origin, ranks=len(ranks),
                     step_ms=median(f.step_ms for f in ranks.values()),
                     min_exposed_comm_frac=least.exposed_comm_frac, max_exposed_comm_frac=most.exposed_comm_frac,
                     least_exposed_rank=least.rank)]


def _matched(seq: TraceCollectives) -> dict[Key, int]:
    """Key -> position in the rank's sequence."""
    counts: dict[tuple[int, str], int] = defaultdict(int)
    out: dict[Key, int] = {}
    for pos, (step, kind) in enumerate(zip(seq.steps, seq.ops)):
        out[(step, kind, counts[(step, kind)])] = pos
        counts[(step, kind)] += 1
    return out


def trace_skew(facts: list[Fact]) -> list[Fact]:
    """trace.straggler for the rank that most often arrives last; trace.collective_absent for missing ranks."""
    seqs = {f.rank: f for f in _of(facts, TraceCollectives)}
    if len(seqs) < 2:
        return []
    keyed = {rank: _matched(seq) for rank, seq in seqs.items()}
    steps = _steps_by_rank(facts, seqs)
    common_steps = set.intersection(*steps.values())
    every = set().union(*keyed.values())
    complete = sorted(k for k in every if all(k in keyed[r] for r in seqs))
    out: list[Fact] = _absent(seqs, keyed, sorted(every - set(complete)), common_steps)
    straggler = _straggler(seqs, keyed, complete, facts)
    return out + ([straggler] if straggler else [])


def _steps_by_rank(facts: list[Fact], seqs: dict[int, TraceCollectives]) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {rank: set() for rank in seqs}
    for f in _of(facts, TraceStep):
        if f.rank in out:
            out[f.rank].add(f.step)
    for rank, seq in seqs.items():
        if not out[rank]:
            out[rank] = set(seq.steps)
    return out


def _typical(seqs: dict[int, TraceCollectives], kind: str) -> float:
    values = [d for seq in seqs.values() for k, d in zip(seq.ops, seq.durations_ms) if k == kind]
    return median(values) if values else -1.0


def _absent(seqs: dict[int, TraceCollectives], keyed: dict[int, dict[Key, int]], missing: list[Key],
            common_steps: set[int]) -> list[Fact]:
    out: list[Fact] = []
    for key in missing:
        step, kind, nth = key
        if step not in common_steps:
            continue                      # a rank's trace does not cover this step at all
        present = {r: keyed[r][key] for r in seqs if key in keyed[r]}
        waited_rank, pos = max(present.items(), key=lambda item: seqs[item[0]].durations_ms[item[1]])
        witness = seqs[waited_rank]
        waited = witness.durations_ms[pos]
        typical = _typical(seqs, kind)
        stalled = waited >= STALL_MS or (typical > 0 and waited >= STALL_FACTOR * typical)
        if not stalled:
            continue
        for rank in sorted(set(seqs) - set(present)):
            text = (f"step {step}: rank {rank} never entered {kind} #{nth + 1} ({witness.names[pos]}); "
                    f"rank {waited_rank} waited {waited:g} ms in it (usually {typical:g} ms)")
            origin = type(witness.origin)(witness.origin.source, witness.events[pos], text, witness.origin.probe,
                                          witness.origin.mode)
            out.append(CollectiveAbsent(node=seqs[rank].node, rank=rank, origin=origin, step=step, op=kind,
                                        index=nth + 1, kernel=witness.names[pos], present_ranks=len(present),
                                        waited_ms=waited, typical_ms=typical))
    return out


def _straggler(seqs: dict[int, TraceCollectives], keyed: dict[int, dict[Key, int]], complete: list[Key],
               facts: list[Fact]) -> Fact | None:
    if not complete:
        return None
    last_count: dict[int, int] = defaultdict(int)
    caused: dict[int, float] = defaultdict(float)
    worst: dict[int, tuple[float, Key, int]] = {}
    for key in complete:
        durs = {r: seqs[r].durations_ms[keyed[r][key]] for r in seqs}
        last = min(durs, key=lambda r: durs[r])
        waiter = max(durs, key=lambda r: durs[r])
        wait = durs[waiter] - durs[last]
        last_count[last] += 1
        caused[last] += wait
        if wait > worst.get(last, (-1.0, key, waiter))[0]:
            worst[last] = (wait, key, waiter)
    rank = max(caused, key=lambda r: (caused[r], last_count[r]))
    total_wait = sum(caused.values())
    steps = len({k[0] for k in complete})
    seq = seqs[rank]
    wait, (step, kind, nth), waiter = worst[rank]
    pos = keyed[waiter][(step, kind, nth)]
    witness = seqs[waiter]
    text = (f"rank {rank} arrived last at {last_count[rank]} of {len(complete)} collectives, "
            f"{caused[rank] / max(total_wait, 1e-9):.0%} of all waiting; at step {step} {witness.names[pos]} #{nth + 1}, "
            f"rank {waiter} waited {wait:.1f} ms for it")
    origin = type(witness.origin)(witness.origin.source, witness.events[pos], text, witness.origin.probe,
                                  witness.origin.mode)
    step_ms = seq.step_ms if seq.step_ms > 0 else 1.0
    return TraceStraggler(node=seq.node, rank=rank, origin=origin, collectives=len(complete),
                     last_frac=round(last_count[rank] / len(complete), 4),
                     waited_for_frac=round(caused[rank] / total_wait, 4) if total_wait > 0 else 0.0,
                     wait_frac=round(caused[rank] / steps / step_ms, 4), wait_ms=round(wait, 2), step=step,
                     kernel=witness.names[pos], dataloader_frac=seq.dataloader_frac,
                     compute_ratio=_compute_ratio(facts, rank))


def _compute_ratio(facts: list[Fact], rank: int) -> float:
    compute = {f.rank: f.compute_frac * f.step_ms for f in _of(facts, TraceRank) if f.compute_frac >= 0}
    others = [v for r, v in compute.items() if r != rank]
    if rank not in compute or not others or median(others) <= 0:
        return -1.0
    return round(compute[rank] / median(others), 3)
