"""CUDA memory snapshots: torch.cuda.memory._dump_snapshot() pickles (or .gz of them), read without pickle.load.

Recognised by content: a binary pickle (protocol 2-5 header). Any pickle is claimed, so that one which is not
a snapshot, or wants to run code, is refused with a one-line reason instead of being skipped silently. The
snapshot (a dict: segments, device_traces, allocator_settings) is loaded by a restricted unpickler that builds
builtin containers and scalars only (doctor/probing/safe_pickle.py), then replayed to its peak.
Sample structure:
    {"segments": [{"device": 0, "address": 139830000000000, "total_size": 2097152, "allocated_size": 1048576,
                   "segment_type": "large", "blocks": [{"size": 1048576, "state": "active_allocated",
                   "frames": [{"filename": ".../torch/optim/adam.py", "line": 86, "name": "_init_group"}, ...]}]}],
     "device_traces": [[{"action": "alloc", "addr": ..., "size": 1048576, "frames": [...]}, {"action": "oom", ...}]]}
"""
from __future__ import annotations

from typing import BinaryIO

from doctor.facts.memory import MemorySnapshot
from doctor.memory.classify import CATEGORIES
from doctor.memory.replay import DeviceMemory, analyse
from doctor.probing.contract import ParseContext
from doctor.probing.safe_pickle import PickleRefused, safe_load
from doctor.probing.stream import StreamProbe, StreamRefused

GiB = 2**30


def is_pickle(head: bytes) -> bool:
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


class MemorySnapshotProbe(StreamProbe):
    name = "memory_snapshot"
    yields = ("memory.snapshot",)

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        return is_pickle(head)

    def read(self, stream: BinaryIO, ctx: ParseContext) -> None:
        try:
            snapshot = safe_load(stream)
        except PickleRefused as exc:
            raise StreamRefused(f"pickle refused: {exc}") from None
        try:
            devices = analyse(snapshot)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:   # builtin data, but not shaped like a snapshot
            raise StreamRefused(f"a pickle, but not a CUDA memory snapshot ({exc.__class__.__name__}: {exc})") from None
        if not devices:
            raise StreamRefused("a pickle, but not a CUDA memory snapshot (no 'segments' list)")
        for mem in devices:
            _emit(ctx, mem)


def _gib(value: float) -> str:
    return f"{value / GiB:.2f} GiB"


def _emit(ctx: ParseContext, mem: DeviceMemory) -> None:
    used = mem.allocated
    cats = mem.by_category
    frac = (lambda v: round(v / mem.reserved, 4)) if mem.reserved > 0 else (lambda v: -1.0)
    known = {c: v for c, v in cats.items() if c != "unknown"}
    dominant = max(known, key=lambda c: known[c]) if any(known.values()) else "unknown"
    cached = max(0.0, mem.reserved - used)
    moment = f"at the out-of-memory error (request {_gib(mem.requested)})" if mem.oom else "at its peak"
    parts = ", ".join(f"{c} {_gib(cats[c])}" for c in CATEGORIES if cats[c] > 0)
    text = (f"device {mem.device} {moment}: {_gib(used)} in use ({parts}); {_gib(mem.reserved)} reserved, "
            f"{_gib(cached)} cached free, largest free block {_gib(mem.largest_free_block)}")
    ctx.emit(MemorySnapshot, 0, text, device=mem.device, reserved=mem.reserved, peak_allocated=used, oom=mem.oom,
             requested=mem.requested, device_free=mem.device_free, cached_free=cached,
             largest_free_block=mem.largest_free_block,
             cache_covers_request=mem.oom and cached >= mem.requested > mem.largest_free_block,
             expandable=mem.expandable, frames_recorded=mem.frames_recorded,
             **{c: cats[c] for c in CATEGORIES},
             model_states_frac=frac(cats["parameters"] + cats["gradients"] + cats["optimizer"]),
             parameters_frac=frac(cats["parameters"]), optimizer_frac=frac(cats["optimizer"]),
             gradients_frac=frac(cats["gradients"]), activations_frac=frac(cats["activations"]),
             checkpoint_frac=frac(cats["checkpoint"]), unknown_frac=frac(cats["unknown"]),
             fragmentation_frac=round(cached / mem.reserved, 4) if mem.reserved > 0 else -1.0,
             dominant=dominant, where=mem.where.get(dominant, (0.0, ""))[1])
