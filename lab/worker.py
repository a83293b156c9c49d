"""A tiny DDP-like gloo worker with injectable faults.

Run it once per rank (plain ``python -m lab.worker`` with RANK/WORLD_SIZE/
MASTER_ADDR/MASTER_PORT in the environment, or under torchrun). It joins the
process group from ``env://``, then does a few "training steps", each an
``all_reduce`` of a small gradient tensor followed by a ``barrier``, printing a
line per step, the way a user's training script would.

Faults (``--fault``), applied on rank ``--fault-rank`` at step ``--fault-step``:

* ``none``: a clean run.
* ``skip-collective``: rank-divergent control flow: the rank skips the step's
  ``all_reduce`` (e.g. ``if rank != k: all_reduce(...)``) and goes straight to
  the ``barrier``, so the ranks no longer agree on the collective sequence and
  the others hang until the gloo timeout (or, with
  ``TORCH_DISTRIBUTED_DEBUG=DETAIL``, get the collective mismatch report).
* ``exit-mid-collective``: the rank launches the ``all_reduce`` asynchronously
  and then dies with ``os._exit(1)`` before it completes, the way a process
  killed by the OOM killer or a segfault leaves its peers.
* ``slow-rank``: the rank's "compute" takes ``--slow-seconds`` longer on every
  step (a busy or throttled node), so every collective waits for it.

Each step line reports the time spent in compute and in the collectives, like
the step/data-time lines of a training log.
"""
from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from datetime import timedelta

FAULTS: tuple[str, ...] = ("none", "skip-collective", "exit-mid-collective", "slow-rank")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m lab.worker", description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3, help="training steps to run")
    p.add_argument("--timeout", type=float, default=10.0, help="process group timeout (s)")
    p.add_argument("--fault", choices=FAULTS, default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=1)
    p.add_argument("--numel", type=int, default=1024, help="elements in the all_reduced tensor")
    p.add_argument("--step-sleep", type=float, default=0.0, help="compute time per step on every rank (s)")
    p.add_argument("--slow-seconds", type=float, default=1.0, help="extra compute per step for slow-rank (s)")
    return p.parse_args(argv)


def log(rank: int | str, msg: str) -> None:
    print(f"[rank{rank}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch
    import torch.distributed as dist

    rank_env = os.environ.get("RANK", "?")
    log(rank_env, f"host={socket.gethostname()} torch={torch.__version__} "
        f"MASTER_ADDR={os.environ.get('MASTER_ADDR')} MASTER_PORT={os.environ.get('MASTER_PORT')} "
        f"WORLD_SIZE={os.environ.get('WORLD_SIZE')}")
    log(rank_env, "init_process_group(backend='gloo', init_method='env://')")
    dist.init_process_group(backend="gloo", init_method="env://",
                            timeout=timedelta(seconds=args.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    log(rank, f"joined process group: rank {rank}/{world}")

    weight = torch.zeros(args.numel)
    for step in range(args.steps):
        t0 = time.perf_counter()
        grad = torch.full((args.numel,), float(rank + 1))
        compute = args.step_sleep
        if args.fault == "slow-rank" and rank == args.fault_rank and step >= args.fault_step:
            compute += args.slow_seconds
        time.sleep(compute)  # stands for forward/backward
        t1 = time.perf_counter()
        faulty = rank == args.fault_rank and step == args.fault_step
        if faulty and args.fault == "skip-collective":
            log(rank, f"step {step}: skipping all_reduce (rank-divergent branch)")
        elif faulty and args.fault == "exit-mid-collective":
            work = dist.all_reduce(grad, async_op=True)
            log(rank, f"step {step}: all_reduce in flight, process dies now (os._exit(1))")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)
            work.wait()  # unreachable: the peers never get this rank's data
        else:
            dist.all_reduce(grad)
        grad /= world
        weight -= 0.1 * grad
        dist.barrier()
        t2 = time.perf_counter()
        log(rank, f"step {step}: loss={weight.abs().mean().item():.4f} "
            f"step_time={t2 - t0:.3f}s compute={t1 - t0:.3f}s comm={t2 - t1:.3f}s")

    dist.destroy_process_group()
    log(rank, "done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
