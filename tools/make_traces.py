"""Record real torch.profiler (Kineto) traces of a small DDP job on CPU with gloo, healthy and with injected faults.

    PYTHONPATH=$PWD nice -n -10 .venv/bin/python tools/make_traces.py [--out fixtures/traces/cpu] [--only NAME]

Each scenario runs WORLD ranks as real processes (torch.multiprocessing.spawn, gloo over loopback), trains a
small MLP under DistributedDataParallel and profiles a few steps with a schedule (ProfilerStep#N markers), then
writes one gzipped chrome trace per rank: <out>/<scenario>/rank<R>.json.gz. The faults are injected on purpose:

- healthy: compute-bound steps, data already in memory, default DDP buckets.
- slow_rank: rank 1 does extra forward passes every step (a slower device), so every collective waits for it.
- slow_dataloader: __getitem__ sleeps and one worker feeds the loader, so each step waits for its batch.
- comm_exposed: many narrow layers, a tiny batch and tiny DDP buckets (bucket_cap_mb): one small, latency-bound
  all-reduce per parameter dominates the step.
- desync: rank 1 skips the step's metric all_reduce in the last profiled step; rank 0 waits in it until the
  process-group timeout, then both export what they recorded.

Timings depend on the machine: each rank is pinned to one core and the recording is best run at a raised
priority (nice -n -10) on a shared machine, so other load does not swamp the injected fault. The committed
fixtures are one recording (see fixtures/traces/README.md).
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import socket
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path


@dataclass(frozen=True)
class Scenario:
    width: int = 256            # hidden size of the MLP
    depth: int = 3              # hidden layers
    batch: int = 256
    workers: int = 0            # DataLoader workers
    item_sleep_s: float = 0.0   # sleep in Dataset.__getitem__
    bucket_cap_mb: float = 25.0
    slow_rank: int = -1         # this rank runs extra forward passes
    slow_factor: int = 0
    skip_metric_rank: int = -1  # this rank skips the metric all_reduce in the last profiled step
    world: int = 2


SCENARIOS: dict[str, Scenario] = {
    "healthy": Scenario(batch=1024),
    "slow_rank": Scenario(batch=1024, slow_rank=1, slow_factor=6),
    "slow_dataloader": Scenario(workers=1, item_sleep_s=0.0002, batch=512),
    "comm_exposed": Scenario(width=128, depth=24, batch=8, bucket_cap_mb=0.01),
    "desync": Scenario(batch=1024, skip_metric_rank=1),
}

WAIT, WARMUP, ACTIVE = 1, 1, 5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Batches:
    """An in-memory data set indexed by whole batches (one indexing op per batch keeps the trace small);
    item_sleep_s per sample stands for decoding, augmentation or slow storage."""

    def __init__(self, rows: int, width: int, item_sleep_s: float) -> None:
        import torch
        self.x = torch.randn(rows, width)
        self.y = torch.randn(rows, width)
        self.item_sleep_s = item_sleep_s

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, index: list[int]):
        if self.item_sleep_s:
            time.sleep(self.item_sleep_s * len(index))
        return self.x[index], self.y[index]


def rank_main(rank: int, name: str, port: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch.utils.data import BatchSampler, DataLoader, SequentialSampler

    sc = SCENARIOS[name]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    if hasattr(os, "sched_setaffinity"):          # one core per rank: less noise from each other
        os.sched_setaffinity(0, {rank % (os.cpu_count() or 1)})
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=sc.world, timeout=timedelta(seconds=4))

    layers: list[torch.nn.Module] = []
    for _ in range(sc.depth):
        layers += [torch.nn.Linear(sc.width, sc.width), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers)
    model = DDP(net, bucket_cap_mb=sc.bucket_cap_mb)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    total = WAIT + WARMUP + ACTIVE
    data = Batches(sc.batch * total, sc.width, sc.item_sleep_s)
    sampler = BatchSampler(SequentialSampler(range(len(data))), sc.batch, drop_last=True)
    loader = DataLoader(data, batch_size=None, sampler=sampler, num_workers=sc.workers)
    batches = iter(loader)
    failed = ""
    prof = profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE))
    prof.start()
    try:
        for step in range(total):
            x, y = next(batches)
            if rank == sc.slow_rank:
                with torch.no_grad():
                    for _ in range(sc.slow_factor):
                        net(x)
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if not (rank == sc.skip_metric_rank and step == total - 1):
                metric = loss.detach().clone()
                dist.all_reduce(metric)
            prof.step()
    except RuntimeError as exc:          # the desync scenario: the peer never joined
        failed = str(exc).splitlines()[0][:200]
    if sc.skip_metric_rank >= 0 and rank == sc.skip_metric_rank:
        time.sleep(6)                     # stay alive past the peers' timeout, as a hung job would
    prof.stop()
    target = Path(out) / name / f"rank{rank}.json"
    prof.export_chrome_trace(str(target))
    with target.open("rb") as src, gzip.open(f"{target}.gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    target.unlink()
    print(f"{name} rank {rank}: wrote {target}.gz{' after: ' + failed if failed else ''}", flush=True)
    try:
        dist.destroy_process_group()
    except RuntimeError:
        pass


def record(name: str, out: Path) -> None:
    import torch.multiprocessing as mp
    (out / name).mkdir(parents=True, exist_ok=True)
    mp.spawn(rank_main, args=(name, free_port(), str(out)), nprocs=SCENARIOS[name].world, join=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="fixtures/traces/cpu", help="folder for <scenario>/rank<R>.json.gz")
    parser.add_argument("--only", choices=sorted(SCENARIOS), action="append", help="record only these scenarios")
    args = parser.parse_args(argv)
    for name in args.only or list(SCENARIOS):
        record(name, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
