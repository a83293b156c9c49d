"""Facts from CUDA caching-allocator snapshots (torch.cuda.memory._snapshot / _dump_snapshot).

Sizes are bytes. The breakdown is of the memory in use at the peak (the OOM, when the snapshot recorded one),
classified by the stack frames of each allocation; fractions are of the memory the allocator held then
(reserved), so "model states fill the GPU" and "the cache is full of holes" are measured on the same base.
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class MemorySnapshot(Fact):
    """One device of a memory snapshot: what held the memory at its peak, and how fragmented the cache was."""

    KIND = "memory.snapshot"
    device: int = -1
    reserved: float = -1              # cudaMalloc'd segments at the peak
    peak_allocated: float = -1        # in use by tensors at the peak
    oom: bool = False                 # the allocator recorded an out-of-memory in the trace
    requested: float = -1             # the failed request, when oom
    device_free: float = -1           # what CUDA reported free at the OOM
    cached_free: float = -1           # reserved but not allocated at the peak
    largest_free_block: float = -1    # largest inactive block in the cache at the peak
    cache_covers_request: bool = False  # cached_free alone exceeds the failed request
    expandable: bool = False          # expandable_segments was on
    frames_recorded: bool = False     # allocations carry stack frames (_record_memory_history was on)
    parameters: float = 0
    gradients: float = 0
    optimizer: float = 0
    activations: float = 0
    checkpoint: float = 0             # tensors torch.load put on the GPU
    other: float = 0
    unknown: float = 0                # allocations without frames
    model_states_frac: float = -1     # parameters + gradients + optimizer state
    parameters_frac: float = -1
    optimizer_frac: float = -1
    gradients_frac: float = -1
    activations_frac: float = -1
    checkpoint_frac: float = -1
    unknown_frac: float = -1
    fragmentation_frac: float = -1    # cached_free / reserved
    dominant: str = ""                # the largest category
    where: str = ""                   # the frame that made the largest allocation of that category
