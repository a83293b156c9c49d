"""probes/oom.py: a process holds at least what its allocator reserved. PyTorch's "this process has 0 bytes memory in
use" comes from the driver's per-process accounting, which reads 0 in some containers; taken at face value it made
all of PyTorch's own memory look held by someone else (issue 12, held-out batch CP: pytorch/torchtune#2071, MEM001
stale_process_gpu_memory 0.84 on an activations OOM of a forward pass).
"""
from __future__ import annotations

import pytest

from doctor.probing.contract import parse_lines
from probes.oom import OomMessages

# torchtune#2071 (fixtures/cases/oom-act-torchtune-2071-70b-lora-4090), as the rank printed it
ZERO_ACCOUNTED = ("[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 5 has a total "
                  "capacity of 23.43 GiB of which 210.06 MiB is free. Including non-PyTorch memory, this process has 0 "
                  "bytes memory in use. Of the allocated memory 22.41 GiB is allocated by PyTorch, and 206.09 MiB is "
                  "reserved by PyTorch but unallocated.\n")


def test_zero_bytes_in_use_is_not_all_of_it_held_elsewhere() -> None:
    (event,) = [f for f in parse_lines(OomMessages, ZERO_ACCOUNTED) if f.KIND == "oom.event"]
    gib = 1024 ** 3
    held = 22.41 * gib + 206.09 * 1024 ** 2                        # reserved: allocated + reserved but unallocated
    assert event.outside == pytest.approx(23.43 * gib - held - 210.06 * 1024 ** 2, abs=0.02 * gib)
    assert event.outside_frac < 0.05                                # ~0.6 GiB: the CUDA context, not another process
