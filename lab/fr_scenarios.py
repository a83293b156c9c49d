"""Flight Recorder scenarios: real gloo jobs (torch.multiprocessing.spawn, loopback) whose ranks dump their
Flight Recorder buffers while the fault is live.

Torch 2.13 records gloo collectives in the Flight Recorder when TORCH_FR_BUFFER_SIZE is set. The documented
dump-on-timeout path (TORCH_NCCL_DUMP_ON_TIMEOUT) belongs to ProcessGroupNCCL's watchdog and does not fire for
gloo, so every rank runs a dumper thread that calls ``torch._C._distributed_c10d._dump_fr_trace`` at a fixed
moment (the job's "watchdog"), writes ``nccl_trace_rank_<N>`` (the name TORCH_FR_DUMP_TEMP_FILE's default prefix
gives), waits for the other ranks' dumps and ends the process. A rank that exits before that moment leaves no
dump, as in a real job.

Each scenario is a function ``(rank, world, step) -> None`` run for STEPS steps between init and the dump; the
fault happens at FAULT_STEP. The table SCENARIOS says which rank is the culprit and what the answer is.
"""
from __future__ import annotations

import datetime
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

STEPS = 5
FAULT_STEP = 3
GRAD = 16


@dataclass(frozen=True)
class FrScenario:
    name: str
    world: int
    cause: str
    culprit: tuple[int, ...]          # the rank(s) the title must name
    op: str                           # the collective the title must name
    description: str
    also_acceptable: tuple[str, ...] = ()
    symptom: str = "hang"
    timeout_s: float = 30.0
    dump_after_s: float = 4.0
    dump_prefix: str = "nccl_trace_rank_"
    extra_env: dict[str, str] = field(default_factory=dict)


def _torch():
    import torch
    import torch.distributed as dist
    return torch, dist


def healthy(rank: int, world: int, step: int) -> None:
    torch, dist = _torch()
    dist.all_reduce(torch.ones(GRAD))
    dist.all_reduce(torch.ones(1))


def skip(rank: int, world: int, step: int) -> None:
    """Rank 2 takes a data-dependent branch at FAULT_STEP, skips the gradient all_reduce and goes on to the
    end-of-step barrier. (Skipping into an all_reduce of another size makes gloo abort a process on the size
    check, "Received data size doesn't match expected size", and that rank's dump is lost.)"""
    torch, dist = _torch()
    if not (rank == 2 and step == FAULT_STEP):
        dist.all_reduce(torch.ones(GRAD))
    dist.barrier()


def sleep(rank: int, world: int, step: int) -> None:
    """Rank 1 stalls (a stuck data loader, a long checkpoint write) before the gradient all_reduce."""
    torch, dist = _torch()
    if rank == 1 and step == FAULT_STEP:
        time.sleep(120)
    dist.all_reduce(torch.ones(GRAD))
    dist.all_reduce(torch.ones(1))


def exits(rank: int, world: int, step: int) -> None:
    """Rank 3 dies (os._exit, as a segfault or an OOM kill would) before the gradient all_reduce."""
    torch, dist = _torch()
    if rank == 3 and step == FAULT_STEP:
        os._exit(1)
    dist.all_reduce(torch.ones(GRAD))
    dist.all_reduce(torch.ones(1))


def shapes(rank: int, world: int, step: int) -> None:
    """Rank 1 all_reduces its gradient bucket as a 4x4 tensor at FAULT_STEP while the others send 16 flat floats:
    the same bytes, so gloo runs it without complaint (a different byte count aborts a process on gloo's size
    check and loses its dump); only the recorded shapes show that the ranks disagree."""
    torch, dist = _torch()
    grad = torch.ones(4, GRAD // 4) if (rank == 1 and step == FAULT_STEP) else torch.ones(GRAD)
    dist.all_reduce(grad)
    dist.all_reduce(torch.ones(1))


MICROBATCHES = 4


def pipeline(rank: int, world: int, step: int) -> None:
    """A 2-stage pipeline: stage 0 sends MICROBATCHES activations, stage 1 receives them; at FAULT_STEP stage 0
    sends one fewer (an off-by-one in its schedule), so stage 1 waits for a send that never comes."""
    torch, dist = _torch()
    act = torch.ones(2, GRAD)
    if rank == 0:
        sends = MICROBATCHES - 1 if step == FAULT_STEP else MICROBATCHES
        for _ in range(sends):
            dist.send(act, dst=1)
    else:
        for _ in range(MICROBATCHES):
            dist.recv(act, src=0)
    dist.all_reduce(torch.ones(1))


_GROUPS: dict[int, object] = {}


def two_groups(rank: int, world: int, step: int) -> None:
    """Data-parallel groups [0, 1] and [2, 3]; rank 3 stalls at FAULT_STEP, so only group [2, 3] hangs."""
    torch, dist = _torch()
    if not _GROUPS:
        for ranks in ([0, 1], [2, 3]):
            group = dist.new_group(ranks)
            for r in ranks:
                _GROUPS[r] = group
    group = _GROUPS[rank]
    if rank == 3 and step == FAULT_STEP:
        time.sleep(120)
    dist.all_reduce(torch.ones(GRAD), group=group)


BIG = 16 << 20  # floats: 64 MiB, more than gloo moves on loopback within the 1 ms timeout


def slow(rank: int, world: int, step: int) -> None:
    """Every rank reaches the same large all_reduce at FAULT_STEP, with a process-group timeout far too short."""
    torch, dist = _torch()
    if step == FAULT_STEP:
        group = _GROUPS.get(-1) or dist.new_group(list(range(world)), timeout=datetime.timedelta(milliseconds=1))
        _GROUPS[-1] = group
        dist.all_reduce(torch.ones(BIG), group=group)
    else:
        dist.all_reduce(torch.ones(GRAD))


WORK: dict[str, Callable[[int, int, int], None]] = {
    "healthy": healthy, "skip": skip, "sleep": sleep, "exit": exits, "shapes": shapes,
    "pipeline": pipeline, "two-groups": two_groups, "slow": slow,
}

SCENARIOS: tuple[FrScenario, ...] = (
    FrScenario("healthy", 4, "healthy", (), "",
               "Four ranks, five steps of two all_reduces each, no fault; every rank dumps when it is done.",
               symptom="none"),
    FrScenario("skip", 4, "collective_desync", (2,), "all_reduce",
               "At step 3 rank 2 takes a data-dependent branch and skips the gradient all_reduce: its next "
               "collective is the end-of-step barrier, so at that sequence id rank 2 runs barrier while ranks 0, 1 "
               "and 3 run all_reduce, and the job hangs."),
    FrScenario("sleep", 4, "collective_desync", (1,), "all_reduce",
               "At step 3 rank 1 stalls (sleep) before the gradient all_reduce; ranks 0, 2 and 3 started it and "
               "wait. Rank 1 never started the collective everyone else started.", also_acceptable=("straggler",)),
    FrScenario("exit", 4, "collective_desync", (3,), "all_reduce",
               "At step 3 rank 3 exits (os._exit(1)) before the gradient all_reduce: it leaves no dump; the other "
               "ranks started the all_reduce and fail or wait."),
    FrScenario("shapes", 3, "collective_desync", (1,), "all_reduce",
               "At step 3 rank 1 all_reduces its gradient as a 4x4 tensor while ranks 0 and 2 all_reduce 16 flat "
               "floats: the same collective and bytes, different shapes. Gloo does not notice and the run ends; "
               "only the Flight Recorder shows that the ranks disagreed.", symptom="crash"),
    FrScenario("pipeline", 2, "collective_desync", (1,), "all_reduce",
               "A 2-stage pipeline: stage 0 sends 4 activations per step with send(), stage 1 receives 4 with "
               "recv(); at step 3 stage 0 sends only 3 and goes on to the loss all_reduce, while stage 1 waits in "
               "its 4th recv. Torch 2.13 does not record gloo send/recv in the Flight Recorder (pg_status still "
               "counts them: rank 0 enqueued 14 ops, rank 1 10), so the dumps show rank 1 never starting the "
               "all_reduce rank 0 started: rank 1 is the hung rank; the schedule bug is rank 0's."),
    FrScenario("two-groups", 4, "collective_desync", (3,), "all_reduce",
               "Two data-parallel groups, [0, 1] and [2, 3]; at step 3 rank 3 stalls before its group's "
               "all_reduce. Group [0, 1] finishes all 5 steps; group [2, 3] hangs with rank 2 in the all_reduce "
               "rank 3 never started.", also_acceptable=("straggler",)),
    FrScenario("slow", 2, "straggler", (0, 1), "all_reduce",
               "Both ranks reach the same 64 MiB all_reduce at step 3 together, with matching sizes, on a process "
               "group whose timeout is 1 ms: gloo raises 'Timed out waiting 1ms for recv operation' on both; nobody "
               "is missing or behind, the timeout is too short for the work.",
               also_acceptable=("collective_desync",)),
)
BY_NAME = {sc.name: sc for sc in SCENARIOS}


def _dumper(rank: int, world: int, out: Path, prefix: str, at: float, done: threading.Event) -> None:
    import torch
    done.wait(max(0.0, at - time.time()))
    if os.environ.get("FR_DUMP_JSON") == "1":      # the JSON writer: keys sorted, no stack frames
        data = torch._C._distributed_c10d._dump_fr_trace_json(includeCollectives=True, onlyActive=False)
    else:
        data = torch._C._distributed_c10d._dump_fr_trace(includeCollectives=True, includeStackTraces=True,
                                                         onlyActive=False)
    tmp = out / f".{prefix}{rank}.tmp"
    tmp.write_bytes(data)
    tmp.rename(out / f"{prefix}{rank}")
    deadline = time.time() + 8
    while time.time() < deadline and len(list(out.glob(f"{prefix}*"))) < world:
        time.sleep(0.1)
    sys.stdout.flush()
    os._exit(0)


def rank_main(rank: int, name: str, world: int, port: int, out: str) -> None:
    """One rank: init, then the dump falls dump_after_s after init (rank 0 writes that moment to .dump_at)."""
    sc = BY_NAME[name]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    import torch.distributed as dist
    done = threading.Event()
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=sc.timeout_s))
    at = time.time() + sc.dump_after_s
    if rank == 0:
        (Path(out) / ".dump_at").write_text(f"{at}")
    thread = threading.Thread(target=_dumper, args=(rank, world, Path(out), sc.dump_prefix, at, done), daemon=True)
    thread.start()
    try:
        for step in range(1, STEPS + 1):
            WORK[name](rank, world, step)
    except Exception as exc:   # the fault surfaces as a gloo error on the healthy ranks: keep it in the log
        print(f"[rank{rank}] {type(exc).__name__}: {str(exc).splitlines()[0]}", flush=True)
    done.set()
    thread.join()
