"""Derived facts about memory across the GPUs of one snapshot (a row of doctor.aggregate.AGGREGATORS).

gpu0_excess  GPU 0 holding clearly more than every other GPU while all are in use: in data-parallel training
             each rank should hold about the same, so extra memory on GPU 0 is other ranks' tensors or CUDA
             contexts there (torch.load without map_location, a missing set_device).
"""
from __future__ import annotations

from collections import defaultdict

from doctor.facts import Fact
from doctor.facts.hardware import GpuMemorySkew, GpuMemoryUse

IN_USE = 0.1        # a GPU the job uses holds at least this share of its memory


def _snapshots(facts: list[Fact]) -> dict[tuple[str, str], dict[int, GpuMemoryUse]]:
    """Per node and file, the last reading of each GPU."""
    out: dict[tuple[str, str], dict[int, GpuMemoryUse]] = defaultdict(dict)
    for f in facts:
        if isinstance(f, GpuMemoryUse) and f.gpu >= 0 and f.used_bytes >= 0 and f.total_bytes > 0:
            out[(f.node, f.origin.source)][f.gpu] = f
    return out


def gpu0_excess(facts: list[Fact]) -> list[Fact]:
    out: list[Fact] = []
    for (node, _), gpus in sorted(_snapshots(facts).items()):
        if 0 not in gpus or len(gpus) < 2 or any(g.used_frac < IN_USE for g in gpus.values()):
            continue
        first = gpus[0]
        most = max(g.used_bytes for i, g in gpus.items() if i != 0)
        if most <= 0 or first.used_bytes <= most:
            continue
        out.append(GpuMemorySkew(node=node, origin=first.origin, gpus=len(gpus), gpu0_bytes=first.used_bytes,
                                 next_bytes=most, excess_bytes=first.used_bytes - most,
                                 ratio=first.used_bytes / most))
    return out
