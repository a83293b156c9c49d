"""Facts of every rank to rank 0: over the gloo process group (sizes, then padded byte tensors), or through the
store when no mesh could be built. JSON bytes either way (doctor.cluster.wire), never pickle."""
from __future__ import annotations

import time
from datetime import timedelta
from typing import Any


def over_gloo(payload: bytes, rank: int, world: int) -> list[bytes] | None:
    """Every rank's payload on rank 0 (None elsewhere). A collective: every rank must call it."""
    import torch
    import torch.distributed as dist
    size = torch.tensor([len(payload)], dtype=torch.int64)
    sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(sizes, size)
    longest = max(int(s.item()) for s in sizes)
    buf = torch.zeros(longest, dtype=torch.uint8)
    if payload:
        buf[:len(payload)] = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
    if rank != 0:
        dist.gather(buf, dst=0)
        return None
    out = [torch.empty(longest, dtype=torch.uint8) for _ in range(world)]
    dist.gather(buf, out, dst=0)
    return [bytes(t[:int(s.item())].tolist()) for t, s in zip(out, sizes)]   # tolist: torch without numpy


def over_store(store: Any, payload: bytes, rank: int, world: int, timeout_s: float) -> list[bytes | None] | None:
    """The same through the TCPStore: a rank that never wrote its payload within timeout_s gives None."""
    store.set(f"facts/{rank}", payload)
    if rank != 0:
        return None
    keys = [f"facts/{r}" for r in range(world)]
    deadline = time.monotonic() + timeout_s
    while not store.check(keys) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [store.get(k) if store.check([k]) else None for k in keys]


def wait_done(store: Any, rank: int, timeout_s: float) -> None:
    """Rank 0 says it has read everything (so a rank hosting nothing can leave without cutting the store short)."""
    if rank == 0:
        store.set("facts/done", b"1")
        return
    try:
        store.wait(["facts/done"], timedelta(seconds=timeout_s))
    except Exception:  # noqa: BLE001 - rank 0 gone: nothing more to wait for
        pass
