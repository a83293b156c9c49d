"""A small, healthy torch.distributed (gloo, CPU) job for lab/healthy_cases.py.

Modes (argv[1]):
  allreduce  init, a few all_reduce/broadcast/barrier calls, print results, exit
  train      a tiny DDP model trained for N steps, one line per step with its time
  profile    like train, under torch.profiler; rank 0 writes a Chrome trace to argv[2]
  spawn      started by torch.multiprocessing.spawn (argv[2] = world size)
  monitored  all_reduce then monitored_barrier (for TORCH_DISTRIBUTED_DEBUG=DETAIL)
Every rank prints to stdout; the launcher captures it verbatim.
"""
from __future__ import annotations

import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn


def _allreduce_round() -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.ones(4) * (rank + 1)
    dist.all_reduce(t)
    expected = world * (world + 1) / 2
    print(f"rank {rank}/{world}: all_reduce -> {t.tolist()} (expected {expected})", flush=True)
    b = torch.tensor([float(rank)])
    dist.broadcast(b, src=0)
    print(f"rank {rank}: broadcast from 0 -> {b.item()}", flush=True)
    dist.barrier()
    print(f"rank {rank}: barrier passed", flush=True)


def _train(steps: int, prof=None) -> None:
    torch.manual_seed(0)
    rank, world = dist.get_rank(), dist.get_world_size()
    model = nn.parallel.DistributedDataParallel(
        nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(rank)
    for step in range(steps):
        t0 = time.perf_counter()
        x = torch.randn(64, 256, generator=gen)
        y = torch.randint(0, 10, (64,), generator=gen)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ms = (time.perf_counter() - t0) * 1000
        print(f"rank {rank}/{world} step {step:3d} loss {loss.item():.4f} step_time_ms {ms:.1f}", flush=True)
        if prof is not None:
            prof.step()
    dist.barrier()


def _run(mode: str, args: list[str]) -> None:
    dist.init_process_group("gloo")
    print(f"rank {dist.get_rank()}: init_process_group(gloo) done, world_size {dist.get_world_size()}", flush=True)
    if mode == "allreduce":
        _allreduce_round()
    elif mode == "train":
        _train(int(args[0]) if args else 30)
    elif mode == "profile":
        from torch.profiler import ProfilerActivity, profile, schedule
        with profile(activities=[ProfilerActivity.CPU],
                     schedule=schedule(wait=1, warmup=1, active=3, repeat=1)) as prof:
            _train(6, prof)
        if dist.get_rank() == 0:
            prof.export_chrome_trace(args[0])
    elif mode == "monitored":
        _allreduce_round()
        dist.monitored_barrier()
        print(f"rank {dist.get_rank()}: monitored_barrier passed", flush=True)
    dist.destroy_process_group()
    print(f"rank {os.environ.get('RANK')}: done", flush=True)


def _spawned(local_rank: int, world: int) -> None:
    os.environ["RANK"] = str(local_rank)
    os.environ["WORLD_SIZE"] = str(world)
    _run("allreduce", [])


def main() -> None:
    mode = sys.argv[1]
    if mode == "spawn":
        import torch.multiprocessing as mp
        world = int(sys.argv[2])
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29517")
        mp.spawn(_spawned, args=(world,), nprocs=world, join=True)
        print(f"mp.spawn: all {world} processes exited 0", flush=True)
        return
    _run(mode, sys.argv[2:])


if __name__ == "__main__":
    main()
