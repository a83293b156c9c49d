"""The GPU programs that lab/gpu_record.py runs on a lent GPU machine (one GPU is enough).

    python3 lab/gpu_job.py MODE [options]

Each mode is a small, ordinary PyTorch program doing what users do; the faults are in what it is asked to do
(two ranks on one GPU, a batch too large, a resume without map_location), never in PyTorch or NCCL. Output is
what PyTorch and NCCL print, plus the program's own training-log lines. Stdlib and torch only: it runs under the
lent machine's own python3.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

GiB = 2**30


def log(msg: str) -> None:
    print(msg, flush=True)


# -- distributed ------------------------------------------------------------------------------------------------

def allreduce(args: argparse.Namespace) -> None:
    """init_process_group(nccl), one all_reduce, a barrier: each rank on cuda:LOCAL_RANK (or all on cuda:0)."""
    import torch
    import torch.distributed as dist
    local = int(os.environ.get("LOCAL_RANK", "0"))
    device = 0 if args.same_device else local
    torch.cuda.set_device(device)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    t = torch.ones(1 << 20, device="cuda") * (rank + 1)
    dist.all_reduce(t)
    torch.cuda.synchronize()
    dist.barrier()
    log(f"[rank{rank}] all_reduce ok: {t[0].item():.0f}; done")
    dist.destroy_process_group()


# -- out of memory ----------------------------------------------------------------------------------------------

class Wide:
    """A model whose activations are large next to its weights: one projection, then a chain of GELUs
    (each keeps its input for backward), the shape of a wide MLP block at a long sequence."""

    def __init__(self, width: int, depth: int) -> None:
        import torch
        self.proj = torch.nn.Linear(width, width, device="cuda")
        self.depth = depth

    def parameters(self):
        return self.proj.parameters()

    def __call__(self, x):
        import torch
        h = self.proj(x)
        for _ in range(self.depth):
            h = torch.nn.functional.gelu(h)
        return h


def _train_steps(model, opt, batch: int, width: int, steps: int, start: int = 0) -> None:
    import torch
    for step in range(start, start + steps):
        x = torch.randn(batch, width, device="cuda")
        loss = model(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        log(f"step {step} batch {batch} loss {loss.item():.4f} "
            f"allocated {torch.cuda.memory_allocated() / GiB:.2f} GiB "
            f"max {torch.cuda.max_memory_allocated() / GiB:.2f} GiB")


def oom_activations(args: argparse.Namespace) -> None:
    """Trains at a small batch, then at the batch the user asked for, whose activations do not fit."""
    import torch
    width, depth = 8192, 16
    model = Wide(width, depth)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    log(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters; depth {depth}")
    _train_steps(model, opt, 1024, width, 2)
    log(f"raising the batch to {args.batch}")
    _train_steps(model, opt, args.batch, width, 2, start=2)


def oom_model_states(args: argparse.Namespace) -> None:
    """A full replica with Adam: weights and gradients fit, the optimizer's two states on the first step don't."""
    import torch
    layers = [torch.nn.Linear(16384, 16384, bias=False, device="cuda") for _ in range(args.layers)]
    model = torch.nn.Sequential(*layers)
    n = sum(p.numel() for p in model.parameters())
    log(f"model: {n / 1e9:.2f} B parameters ({n * 4 / GiB:.1f} GiB in fp32); optimizer Adam")
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    x = torch.randn(8, 16384, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    log(f"step 0 backward done, allocated {torch.cuda.memory_allocated() / GiB:.2f} GiB")
    opt.step()
    log("step 0 done")


def oom_fragmentation(args: argparse.Namespace) -> None:
    """Variable-length batches: long batches fill the cache with big segments, shorter ones split them and stay
    alive (kept for logging), so a later long batch finds plenty reserved but no free block large enough."""
    import torch
    kept = []
    big = [torch.empty(4 * GiB, dtype=torch.uint8, device="cuda") for _ in range(args.segments)]
    log(f"long batches: {len(big)} activation buffers of 4 GiB, reserved "
        f"{torch.cuda.memory_reserved() / GiB:.1f} GiB")
    del big
    for i in range(args.segments):
        kept.append(torch.empty(int(2.5 * GiB), dtype=torch.uint8, device="cuda"))
    log(f"short batches: {len(kept)} buffers of 2.5 GiB kept; allocated "
        f"{torch.cuda.memory_allocated() / GiB:.1f} GiB, reserved {torch.cuda.memory_reserved() / GiB:.1f} GiB")
    log("long batch again")
    torch.empty(24 * GiB, dtype=torch.uint8, device="cuda")
    log("long batch done")


class Embedded:
    """A language-model-like block: a large embedding table (cheap to run, large to keep, with dense gradients and
    Adam states), a small MLP and a chain of GELUs whose saved inputs are the activations."""

    def __init__(self, vocab: int, width: int) -> None:
        import torch
        self.net = torch.nn.ModuleDict({
            "emb": torch.nn.Embedding(vocab, width, device="cuda"),
            "up": torch.nn.Linear(width, 2 * width, device="cuda"),
            "down": torch.nn.Linear(2 * width, width, device="cuda")})
        self.vocab = vocab

    def __call__(self, ids):
        import torch
        f = torch.nn.functional
        h = self.net["down"](f.gelu(self.net["up"](self.net["emb"](ids))))
        for _ in range(12):
            h = f.gelu(h)
        return h


def _lm_step(model, opt, batch: int, step: int) -> None:
    import torch
    ids = torch.randint(0, model.vocab, (batch,), device="cuda")
    loss = model(ids).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    log(f"step {step} batch {batch} loss {loss.item():.4f} max allocated "
        f"{torch.cuda.max_memory_allocated() / GiB:.2f} GiB")


def checkpoint_train(args: argparse.Namespace) -> None:
    """First run: find the largest batch that fits (auto batch size: from a guess too large, 0.5% less per try),
    train, save a checkpoint of model and optimizer."""
    import torch
    model = Embedded(args.vocab, args.width)
    opt = torch.optim.Adam(model.net.parameters(), lr=1e-4)
    _lm_step(model, opt, 1024, 0)
    free, _total = torch.cuda.mem_get_info()
    batch = int(free / (args.width * 4 * 17))
    while True:
        try:
            log(f"auto batch size: trying {batch}")
            _lm_step(model, opt, batch, 1)
            break
        except torch.OutOfMemoryError:
            torch.cuda.empty_cache()
            batch = int(batch * 0.995)
    log(f"batch size {batch} fits")
    _lm_step(model, opt, batch, 2)
    torch.save({"model": model.net.state_dict(), "optimizer": opt.state_dict(), "step": 3, "batch": batch},
               args.checkpoint)
    log(f"saved checkpoint {args.checkpoint} at step 3")
    print(batch, file=open(args.checkpoint + ".batch", "w"))


def checkpoint_resume(args: argparse.Namespace) -> None:
    """Second run: resume from the checkpoint with torch.load (no map_location) and the same batch size."""
    import torch
    model = Embedded(args.vocab, args.width)
    opt = torch.optim.Adam(model.net.parameters(), lr=1e-4)
    log(f"resuming from {args.checkpoint}")
    ckpt = torch.load(args.checkpoint)
    model.net.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    start = ckpt["step"]
    log(f"resumed at step {start}, batch size {args.batch}")
    for step in range(start, start + 2):
        _lm_step(model, opt, args.batch, step)


def hold_memory(args: argparse.Namespace) -> None:
    """A leftover process (a notebook, a killed job's orphan) that keeps GPU memory."""
    import torch
    size = int(args.gib * GiB)
    if args.leave >= 0:                 # hold all but `leave` GiB of what is free once this process has its context
        torch.cuda.init()
        torch.empty(1, device="cuda")
        size = torch.cuda.mem_get_info()[0] - int(args.leave * GiB)
    held = torch.empty(size, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    log(f"holding {held.numel() / GiB:.0f} GiB; pid {os.getpid()}")
    time.sleep(args.seconds)


def small_train(args: argparse.Namespace) -> None:
    """An ordinary job needing about 30 GiB, started while another process holds most of the GPU."""
    import torch
    width = 8192
    model = Wide(width, 8)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    _train_steps(model, opt, 65536, width, 3)


def device_assert(args: argparse.Namespace) -> None:
    """A label id outside the embedding table: a user-code bug, not a system fault."""
    import torch
    emb = torch.nn.Embedding(1000, 64, device="cuda")
    ids = torch.randint(0, 1000, (32, 128), device="cuda")
    ids[3, 7] = 1000
    out = emb(ids).sum()
    log(f"loss {out.item():.3f}")


# -- profiler traces --------------------------------------------------------------------------------------------

class Slow:
    """An in-memory data set whose __getitem__ sleeps per sample (decoding, augmentation, slow storage)."""

    def __init__(self, rows: int, width: int, sleep_s: float) -> None:
        import torch
        self.x = torch.randn(rows, width)
        self.sleep_s = sleep_s

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        if self.sleep_s:
            time.sleep(self.sleep_s)
        return self.x[i]


def profiled_ddp(args: argparse.Namespace) -> None:
    """DDP over NCCL (one rank per GPU), an MLP, torch.profiler over 5 steps, then plain steps for a while."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch.utils.data import DataLoader
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    width = 4096
    net = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(width, width), torch.nn.ReLU())])
    model = DDP(net.cuda(), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    data = Slow(args.batch * 64, width, args.item_sleep)
    loader = DataLoader(data, batch_size=args.batch, num_workers=args.workers, pin_memory=True)
    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                   schedule=schedule(wait=1, warmup=1, active=5))
    prof.start()
    t0 = time.time()
    deadline = t0 + args.seconds
    step = 0
    while time.time() < deadline or step < 7:
        for x in loader:
            x = x.cuda(non_blocking=True)
            loss = model(x).pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if step < 7:
                prof.step()
                if step == 6:
                    prof.stop()
                    prof.export_chrome_trace(args.trace.replace("RANK", str(rank)))
            if step % 10 == 0:
                torch.cuda.synchronize()
                log(f"[rank{rank}] step {step} loss {loss.item():.4f} elapsed {time.time() - t0:.1f}s")
            step += 1
            if time.time() > deadline and step >= 7:
                break
    dist.destroy_process_group()
    log(f"[rank{rank}] done")


MODES = {
    "allreduce": allreduce, "oom-activations": oom_activations, "oom-model-states": oom_model_states,
    "oom-fragmentation": oom_fragmentation, "checkpoint-train": checkpoint_train,
    "checkpoint-resume": checkpoint_resume, "hold-memory": hold_memory, "small-train": small_train,
    "device-assert": device_assert, "profiled-ddp": profiled_ddp,
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=sorted(MODES))
    p.add_argument("--same-device", action="store_true")
    p.add_argument("--batch", type=int, default=1 << 20)
    p.add_argument("--layers", type=int, default=40)
    p.add_argument("--segments", type=int, default=30)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--vocab", type=int, default=400_000)
    p.add_argument("--checkpoint", default="/tmp/ckpt.pt")
    p.add_argument("--gib", type=float, default=125)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--leave", type=float, default=-1, help="hold-memory: leave this many GiB free instead of --gib")
    p.add_argument("--item-sleep", type=float, default=0.0)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--trace", default="/tmp/traceRANK.json")
    p.add_argument("--snapshot", help="record the allocator's history and dump a memory snapshot here (at an OOM, "
                                       "or at the end)")
    args = p.parse_args(argv)
    if not args.snapshot:
        MODES[args.mode](args)
        return 0
    import torch
    torch.cuda.memory._record_memory_history(max_entries=20000)
    try:
        MODES[args.mode](args)
    except torch.OutOfMemoryError:
        torch.cuda.memory._dump_snapshot(args.snapshot)
        raise
    torch.cuda.memory._dump_snapshot(args.snapshot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
