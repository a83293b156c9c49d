"""Run the pair tests doctor.cluster.pairing plans: node leaders exchange a buffer both ways with their partner
(send/recv), every pair of a sub-round at once; after each sub-round all ranks share the results, so every
rank computes the same next plan. The lower-ranked end of each pair reports the cluster.pair_bw fact.
"""
from __future__ import annotations

import time
from typing import Any

from doctor.cluster import pairing
from doctor.cluster.measure import time_left
from doctor.cluster.rendezvous import Layout
from doctor.facts import Origin
from doctor.facts.cluster import PairBandwidth

PAIR_BYTES = 2**20
PAIR_ITER_S = 0.2
MIN_REPS = 3
MAX_REPS = 10


def run(layout: Layout, node: str, rank: int, world: int, budget_s: float, device: str = "cpu",
        nbytes: int = PAIR_BYTES, group: Any = None) -> list[PairBandwidth]:
    """Every rank calls it; returns the facts this rank measured as a pair's initiator."""
    nodes = layout.nodes
    me = nodes.index(node) if layout.leader(node) == rank else -1
    deadline = time.monotonic() + budget_s
    results: dict[pairing.Pair, float] = {}
    facts: list[PairBandwidth] = []
    plan = pairing.first_round(len(nodes))
    for round_no in (1, 2):
        for sub in plan:
            if time_left(deadline) <= 0:
                return facts
            mine = next((p for p in sub if me in p), None)
            measured = _exchange(mine, me, layout, nbytes, device, group) if mine else -1.0
            if mine and me == mine[0]:
                a, b = nodes[mine[0]], nodes[mine[1]]
                facts.append(PairBandwidth(node=a, rank=rank, peer=b, gbs=round(measured, 6), bytes=float(2 * nbytes),
                                           seconds=round(2 * nbytes / max(measured, 1e-12) / 1e9, 6), round=round_no,
                                           origin=Origin("doctor cluster", 0, f"pair {a} <-> {b}: {measured:.4f} GB/s "
                                                         f"({nbytes} B each way, round {round_no})", "cluster", "live")))
            results.update(_share(mine if (mine and me == mine[0]) else None, measured, world))
        plan = pairing.follow_ups(len(nodes), results) if round_no == 1 else []
    return facts


def _exchange(p: pairing.Pair, me: int, layout: Layout, nbytes: int, device: str, group: Any) -> float:
    """GB/s of the best of a few two-way exchanges with the partner: a link's speed shows in its best run,
    a moment of CPU contention on a shared host in a few. The initiator decides how many and tells the partner."""
    import torch
    import torch.distributed as dist
    initiator = me == p[0]
    peer = layout.leader(layout.nodes[p[1] if initiator else p[0]])
    buf = torch.zeros(nbytes, dtype=torch.uint8, device=device)
    reps = torch.zeros(1, dtype=torch.int64)
    best = _round_trip(buf, peer, initiator, group)
    if initiator:
        reps[0] = max(MIN_REPS, min(MAX_REPS, int(PAIR_ITER_S / max(best, 1e-6))))
        dist.send(reps, peer)
    else:
        dist.recv(reps, peer)
    for _ in range(int(reps.item())):
        best = min(best, _round_trip(buf, peer, initiator, group))
    return 2 * nbytes / best / 1e9


def _round_trip(buf: Any, peer: int, initiator: bool, group: Any) -> float:
    import torch.distributed as dist
    started = time.perf_counter()
    if initiator:
        dist.send(buf, peer, group=group)
        dist.recv(buf, peer, group=group)
    else:
        dist.recv(buf, peer, group=group)
        dist.send(buf, peer, group=group)
    if buf.is_cuda:
        import torch
        torch.cuda.synchronize()
    return time.perf_counter() - started


def _share(mine: pairing.Pair | None, gbs: float, world: int) -> dict[pairing.Pair, float]:
    """Every initiator's (a, b, GB/s) to every rank."""
    import torch
    import torch.distributed as dist
    row = torch.tensor([mine[0], mine[1], gbs] if mine else [-1.0, -1.0, -1.0], dtype=torch.float64)
    rows = [torch.empty(3, dtype=torch.float64) for _ in range(world)]
    dist.all_gather(rows, row)
    return {(int(r[0]), int(r[1])): float(r[2]) for r in rows if r[0] >= 0}

