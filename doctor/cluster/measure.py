"""Active tests over the process group, each bounded: per-rank timing of a fixed piece of work, and a bus
bandwidth sweep of all_reduce and all_gather (NCCL on GPUs, gloo on CPUs).

busbw follows nccl-tests: all_reduce algbw x 2(n-1)/n, all_gather algbw x (n-1)/n with algbw = total bytes
/ time of the slowest rank. Every decision that changes what ranks do next (how many iterations, whether
to try the next size) is taken on a MAX-reduced time, so all ranks take it alike.
"""
from __future__ import annotations

import os
import time
from typing import Any

from doctor.facts import Origin
from doctor.facts.cluster import BusBandwidth, RankTiming

SIZES = (64 * 2**10, 2**20, 8 * 2**20, 64 * 2**20)
OPS = ("all_reduce", "all_gather")
ITER_S = 0.3              # aim for this much time per size
MAX_ITERS = 10
CPU_SHARE = 0.8         # thread CPU time / wall time below this: the rank shared its core


def _origin(text: str) -> Origin:
    return Origin("doctor cluster", 0, text, "cluster", "live")


def slowest(seconds: float) -> float:
    """The largest of every rank's value (a collective on the default gloo group)."""
    import torch
    import torch.distributed as dist
    t = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def time_left(deadline: float) -> float:
    """The least time any rank has left before its own deadline (clocks of different nodes are not compared)."""
    return -slowest(-(deadline - time.monotonic()))


def time_work(node: str, rank: int, device: str, ranks_here: int, reps: int = 5) -> RankTiming:
    """Best of `reps` runs of the same matrix products, all ranks starting each run together: a slow CPU/GPU
    shows in every run, noise in few. On the CPU each rank uses one thread, and a rank that did not get a
    whole core during its best run (thread CPU time well below wall time: more busy processes than cores,
    e.g. several "nodes" on one host) marks its timing as shared, not comparable."""
    import torch
    import torch.distributed as dist
    cpu = device == "cpu"
    if cpu:
        torch.set_num_threads(1)
    n = 256 if cpu else 4096
    a = torch.randn(n, n, device=device)
    best, best_cpu = float("inf"), 0.0
    for _ in range(reps):
        dist.barrier()
        _sync(device)
        started, cpu_started = time.perf_counter(), time.thread_time()
        for _ in range(16):
            a = torch.tanh(a @ a / n)
        _sync(device)
        wall = time.perf_counter() - started
        if wall < best:
            best, best_cpu = wall, time.thread_time() - cpu_started
    shared = cpu and (ranks_here > (os.cpu_count() or 1) or best_cpu < CPU_SHARE * best)
    return RankTiming(node=node, rank=rank, work_s=round(best, 6), reps=reps, device=device, shared=shared,
                      origin=_origin(f"rank {rank} on {node}: fixed work {best * 1000:.1f} ms (best of {reps}, {device}"
                                     f"{f', had {best_cpu / best:.0%} of a core' if shared else ''})"))


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch
        torch.cuda.synchronize()


def sweep(node: str, rank: int, world: int, nodes: int, backend: str, device: str, budget_s: float,
          sizes: tuple[int, ...] = SIZES, group: Any = None) -> list[BusBandwidth]:
    """The sweep; rank 0 returns the facts, the others an empty list. Sizes go up for all ops together, so a
    short budget on a loaded host still measures each op at its small sizes; an op stops before a size would
    overrun budget_s."""
    facts: list[BusBandwidth] = []
    if world < 2:
        return facts
    deadline = time.monotonic() + budget_s
    stopped: set[str] = set()
    for size in sizes:                          # size-major: every op gets its small sizes before any op its large ones
        for op in OPS:
            if op in stopped:
                continue
            if time_left(deadline) <= 0:        # every rank stops at the same point
                return facts
            fact = _one_size(op, size, node, rank, world, nodes, backend, device, deadline, group)
            if fact is None:
                stopped.add(op)
                continue
            if rank == 0:
                facts.append(fact)
    return facts


def _one_size(op: str, size: int, node: str, rank: int, world: int, nodes: int, backend: str, device: str,
              deadline: float, group: Any) -> BusBandwidth | None:
    import torch
    count = max(world, size // 4 // world * world)          # float32 elements, a multiple of world
    x = torch.ones(count, dtype=torch.float32, device=device)
    warm = slowest(_run(op, x, world, 1, device, group))
    left = time_left(deadline)
    if warm > left / 2:
        return None
    iters = max(1, min(MAX_ITERS, int(ITER_S / max(warm, 1e-6)), int(left / 2 / max(warm, 1e-6))))
    per_iter = slowest(_run(op, x, world, iters, device, group)) / iters
    total = count * 4
    algbw = total / per_iter / 1e9
    factor = 2 * (world - 1) / world if op == "all_reduce" else (world - 1) / world
    busbw = algbw * factor
    text = (f"{op} {total} B over {world} ranks ({backend}): {per_iter * 1e3:.3f} ms, algbw {algbw:.3f} GB/s, "
            f"busbw {busbw:.3f} GB/s ({iters} iters)")
    return BusBandwidth(node=node, rank=rank, op=op, backend=backend, bytes=float(total), ranks=world, nodes=nodes,
                        algbw_gbs=round(algbw, 4), busbw_gbs=round(busbw, 4), seconds=round(per_iter, 6), origin=_origin(text))


def _run(op: str, x: Any, world: int, iters: int, device: str, group: Any) -> float:
    import torch
    import torch.distributed as dist
    chunk = x[: x.numel() // world]
    out = [torch.empty_like(chunk) for _ in range(world)]
    _sync(device)
    started = time.perf_counter()
    for _ in range(iters):
        if op == "all_reduce":
            dist.all_reduce(x, group=group)
        else:
            dist.all_gather(out, chunk, group=group)
    _sync(device)
    return time.perf_counter() - started
