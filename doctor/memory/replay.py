"""From a snapshot dict to what held memory at the peak, per device.

The snapshot's segments say what was reserved and in use when it was taken; its device_traces (when memory
history was recorded) say every alloc/free before that. Replaying the trace finds the peak, or the moment of
the out-of-memory error when there was one, and the categories in use then. Blocks alive at the snapshot
that the trace never saw allocated predate the trace window and are counted from its start.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from doctor.memory.classify import CATEGORIES, classify, frames_of, user_frame

MAX_ENTRIES = 2_000_000
MAX_DEVICES = 64


class SnapshotRefused(ValueError):
    """The snapshot is builtin data but too large or too odd to replay; the message says why, in one line."""


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
    """A finite number, else 0. Values come from an upload: a 5,000-digit int or inf must not reach float()/int()."""
    if type(value) is float:
        return value if math.isfinite(value) else 0.0
    if type(value) is int:
        return float(value) if -2**63 <= value < 2**64 else 0.0
    return 0.0


def _key(value: Any) -> int | str | None:
    """An address as a dict key: only an int or a short string (a nested tuple would be hashed by recursion)."""
    return value if type(value) is int or (type(value) is str and len(value) <= 64) else None


def _text(value: Any, limit: int = 300) -> str:
    """A string from the snapshot, cut; anything else (a shared-reference tree would print exponentially) is ''."""
    return value[:limit] if type(value) is str else ""


def analyse(snapshot: Any) -> list[DeviceMemory]:
    """One DeviceMemory per device found in the snapshot. A dict without segments gives an empty list."""
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("segments"), list):
        return []
    segments = [s for s in snapshot["segments"] if isinstance(s, dict)]
    traces = snapshot.get("device_traces") if isinstance(snapshot.get("device_traces"), list) else []
    settings = snapshot.get("allocator_settings") if isinstance(snapshot.get("allocator_settings"), dict) else {}
    by_device: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for s in segments:                                   # one pass: devices x segments loops are quadratic
        by_device[int(_num(s.get("device")))].append(s)
    devices = sorted(set(by_device) | set(range(len(traces))))
    if len(devices) > MAX_DEVICES:
        raise SnapshotRefused(f"{len(devices)} devices, over the cap of {MAX_DEVICES}")
    _count_blocks(segments)
    out = []
    for dev in devices:
        trace = traces[dev] if dev < len(traces) and isinstance(traces[dev], list) else []
        mine = by_device.get(dev, [])
        if not mine and not trace:
            continue
        out.append(_device(dev, mine, [e for e in trace[:MAX_ENTRIES] if isinstance(e, dict)], settings))
    return out


def _count_blocks(segments: list[dict[str, Any]]) -> None:
    """Refuse a snapshot whose segments hold more than MAX_ENTRIES blocks in all (one list shared by every segment
    would otherwise be built in full: 20,000 x 20,000)."""
    total = 0
    for s in segments:
        blocks = s.get("blocks")
        total += len(blocks) if isinstance(blocks, list) else 0
        if total > MAX_ENTRIES:
            raise SnapshotRefused(f"more than {MAX_ENTRIES} blocks in its segments")


def _blocks(segments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for s in segments for b in (s.get("blocks") if isinstance(s.get("blocks"), list) else [])
            if isinstance(b, dict)]


def _device(dev: int, segments: list[dict[str, Any]], trace: list[dict[str, Any]], settings: dict) -> DeviceMemory:
    mem = DeviceMemory(dev)
    conf = _text(settings.get("PYTORCH_CUDA_ALLOC_CONF"))
    mem.expandable = bool(settings.get("expandable_segments")) or "expandable_segments:True" in conf or \
        any(s.get("is_expandable") for s in segments)
    blocks = _blocks(segments)
    mem.largest_free_block = max((_num(b.get("size")) for b in blocks if _text(b.get("state")) == "inactive"), default=0.0)
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
        if _text(b.get("state")).startswith("active"):
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
    seen_alloc = {_key(e.get("addr")) for e in trace if e.get("action") == "alloc"}
    totals: dict[str, float] = defaultdict(float)
    where: dict[str, tuple[float, str]] = {}
    live: dict[Any, tuple[float, str]] = {}
    for b in blocks:                                     # alive since before the trace window
        if _text(b.get("state")).startswith("active") and _key(b.get("address")) not in seen_alloc:
            size = _num(b.get("size"))
            live[("pre", _key(b.get("address")))] = (size, _count(totals, where, size, b.get("frames")))
    reserved = reserved_now - sum(_num(e.get("size")) * {"segment_alloc": 1, "segment_free": -1}.get(_text(e.get("action")), 0)
                                  for e in trace)
    best = (sum(totals.values()), dict(totals), reserved, dict(where))
    for entry in trace:
        action, size = _text(entry.get("action")), _num(entry.get("size"))
        if action == "alloc":
            live[_key(entry.get("addr"))] = (size, _count(totals, where, size, entry.get("frames")))
        elif action == "free_completed":
            size_cat = live.pop(_key(entry.get("addr")), None)
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
