"""From a snapshot dict to what held memory at the peak, per device.

The snapshot's segments say what was reserved and in use when it was taken; its device_traces (when memory
history was recorded) say every alloc/free before that. Replaying the trace finds the peak, or the moment of
the out-of-memory error when there was one, and the categories in use then. Blocks alive at the snapshot
that the trace never saw allocated predate the trace window and are counted from its start.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from doctor.memory.classify import CATEGORIES, classify, frames_of, user_frame

MAX_ENTRIES = 2_000_000


@dataclass
class DeviceMemory:
    device: int
    reserved: float = 0.0
    allocated: float = 0.0
    by_category: dict[str, float] = field(default_factory=lambda: {c: 0.0 for c in CATEGORIES})
    oom: bool = False
    requested: float = -1.0
    device_free: float = -1.0
    largest_free_block: float = 0.0
    expandable: bool = False
    frames_recorded: bool = False
    where: dict[str, tuple[float, str]] = field(default_factory=dict)   # category -> (size, user frame)


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def analyse(snapshot: Any) -> list[DeviceMemory]:
    """One DeviceMemory per device found in the snapshot. A dict without segments gives an empty list."""
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("segments"), list):
        return []
    segments = [s for s in snapshot["segments"] if isinstance(s, dict)]
    traces = snapshot.get("device_traces") if isinstance(snapshot.get("device_traces"), list) else []
    settings = snapshot.get("allocator_settings") if isinstance(snapshot.get("allocator_settings"), dict) else {}
    devices = sorted({int(_num(s.get("device"))) for s in segments} | set(range(len(traces))))
    out = []
    for dev in devices:
        trace = traces[dev] if dev < len(traces) and isinstance(traces[dev], list) else []
        mine = [s for s in segments if int(_num(s.get("device"))) == dev]
        if not mine and not trace:
            continue
        out.append(_device(dev, mine, [e for e in trace[:MAX_ENTRIES] if isinstance(e, dict)], settings))
    return out


def _blocks(segments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for s in segments for b in (s.get("blocks") or []) if isinstance(b, dict)]


def _device(dev: int, segments: list[dict[str, Any]], trace: list[dict[str, Any]], settings: dict) -> DeviceMemory:
    mem = DeviceMemory(dev)
    conf = str(settings.get("PYTORCH_CUDA_ALLOC_CONF", ""))
    mem.expandable = bool(settings.get("expandable_segments")) or "expandable_segments:True" in conf or \
        any(s.get("is_expandable") for s in segments)
    blocks = _blocks(segments)
    mem.largest_free_block = max((_num(b.get("size")) for b in blocks if b.get("state") == "inactive"), default=0.0)
    mem.frames_recorded = any(b.get("frames") for b in blocks) or any(e.get("frames") for e in trace)
    reserved_now = sum(_num(s.get("total_size")) for s in segments)
    if any(e.get("action") == "alloc" for e in trace):
        _replay(mem, blocks, trace, reserved_now)
    else:
        _from_segments(mem, blocks, reserved_now)
    return mem


def _from_segments(mem: DeviceMemory, blocks: list[dict[str, Any]], reserved_now: float) -> None:
    mem.reserved = reserved_now
    for b in blocks:
        if str(b.get("state", "")).startswith("active"):
            _count(mem.by_category, mem.where, _num(b.get("size")), b.get("frames"))
    mem.allocated = sum(mem.by_category.values())


def _count(totals: dict[str, float], where: dict[str, tuple[float, str]], size: float, raw_frames: Any) -> str:
    frames = frames_of(raw_frames)
    category = classify(frames)
    totals[category] += size
    if size > where.get(category, (-1.0, ""))[0]:
        where[category] = (size, user_frame(frames))
    return category


def _replay(mem: DeviceMemory, blocks: list[dict[str, Any]], trace: list[dict[str, Any]], reserved_now: float) -> None:
    seen_alloc = {e.get("addr") for e in trace if e.get("action") == "alloc"}
    totals: dict[str, float] = defaultdict(float)
    where: dict[str, tuple[float, str]] = {}
    live: dict[Any, tuple[float, str]] = {}
    for b in blocks:                                     # alive since before the trace window
        if str(b.get("state", "")).startswith("active") and b.get("address") not in seen_alloc:
            size = _num(b.get("size"))
            live[("pre", b.get("address"))] = (size, _count(totals, where, size, b.get("frames")))
    reserved = reserved_now - sum(_num(e.get("size")) * {"segment_alloc": 1, "segment_free": -1}.get(e.get("action"), 0)
                                  for e in trace)
    best = (sum(totals.values()), dict(totals), reserved, dict(where))
    for entry in trace:
        action, size = entry.get("action"), _num(entry.get("size"))
        if action == "alloc":
            live[entry.get("addr")] = (size, _count(totals, where, size, entry.get("frames")))
        elif action == "free_completed":
            size_cat = live.pop(entry.get("addr"), None)
            if size_cat:
                totals[size_cat[1]] -= size_cat[0]
        elif action in ("segment_alloc", "segment_free"):
            reserved += size if action == "segment_alloc" else -size
        elif action == "oom" and not mem.oom:
            mem.oom, mem.requested, mem.device_free = True, size, _num(entry.get("device_free"))
            best = (sum(totals.values()), dict(totals), reserved, dict(where))
            break
        in_use = sum(totals.values())
        if in_use > best[0]:
            best = (in_use, dict(totals), reserved, dict(where))
    mem.allocated, mem.reserved = best[0], max(best[2], best[0])
    mem.by_category.update({c: max(0.0, v) for c, v in best[1].items()})
    mem.where = best[3]
