"""One rank's trace, reduced while it streams.

CPU time goes straight into microsecond bitsets (busy CPU ops, the calling thread blocked in a collective,
gloo transfers, DataLoader waits). GPU events are kept compactly (start, end, class, correlation: 25 bytes
each) because which step a kernel belongs to is decided by when the CPU launched it, and the launch may be
written after the kernel. finish() (doctor/traces/figures.py) turns this into per-step figures.
"""
from __future__ import annotations

from array import array
from math import ceil, floor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from doctor.traces.events import (ANNOTATION, CATEGORIES, COMM, CPU_OP, DTYPE_BYTES, KERNEL, MEMCPY, MEMORY,
                                  MEMSET, RUNTIME, collective_kind, is_cpu_comm, is_dataloader, is_gloo_transfer,
                                  kernel_class, step_number)
from doctor.traces.timebits import TimeBits

# older spellings appear verbatim ("Kernel", "Runtime"); map them once instead of lowering every category
_CATS: dict[str, str] = {**CATEGORIES, **{k.capitalize(): v for k, v in CATEGORIES.items()}}
_MAX_CORRELATION = 1 << 26          # beyond this, correlation ids are kept in a dict
_UNSET = array("d", [float("nan")])


class Step(NamedTuple):
    number: int
    start: int
    end: int
    index: int                       # event index in traceEvents (1-based)
    profiler: bool


class Comm(NamedTuple):
    """One collective on one rank: a gloo transfer (CPU time) or an NCCL kernel (GPU time)."""

    kind: str
    name: str
    start: int
    end: int
    index: int
    corr: int
    nbytes: float
    group: int


class Copy(NamedTuple):
    start: int
    end: int
    nbytes: float
    corr: int
    pageable: bool


class LaunchTimes:
    """CPU time of each runtime call by correlation id: a flat array while ids stay dense (CUPTI hands them out in
    sequence), a dict for ids that would leave the array mostly empty."""

    def __init__(self) -> None:
        self.flat = array("d")
        self.stored = 0
        self.sparse: dict[int, float] = {}

    def put(self, corr: int, ts: float) -> None:
        size = len(self.flat)
        if 0 <= corr < size:
            self.flat[corr] = ts
            self.stored += 1
            return
        new_size = max(corr + 1, size + size // 2, 4096)
        if 0 <= corr < _MAX_CORRELATION and self.stored * 4 + 4096 >= new_size:    # at least a quarter full
            self.flat.extend(_UNSET * (new_size - size))
            self.flat[corr] = ts
            self.stored += 1
        else:
            self.sparse[corr] = ts

    def get(self, corr: int) -> float | None:
        if 0 <= corr < len(self.flat):
            value = self.flat[corr]
            if value == value:          # NaN marks an id never seen
                return value
        return self.sparse.get(corr)


@dataclass
class RankTrace:
    """Everything finish() needs from one rank's events."""

    steps: list[Step] = field(default_factory=list)
    busy: TimeBits = field(default_factory=TimeBits)       # CPU ops that are not collectives
    blocked: TimeBits = field(default_factory=TimeBits)    # the calling thread inside a collective op
    transfer: TimeBits = field(default_factory=TimeBits)   # gloo transfers on gloo threads
    loader: TimeBits = field(default_factory=TimeBits)     # waiting for the next batch
    k_start: array = field(default_factory=lambda: array("q"))
    k_end: array = field(default_factory=lambda: array("q"))
    k_class: array = field(default_factory=lambda: array("b"))
    k_corr: array = field(default_factory=lambda: array("q"))
    launches: LaunchTimes = field(default_factory=LaunchTimes)
    comms: list[Comm] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)
    kernel_classes: dict[str, int] = field(default_factory=dict)

    def add(self, index: int, event: dict[str, Any]) -> None:
        """Take one trace event (any kind; what is not needed is dropped)."""
        if event.get("ph") != "X":
            return
        cat = _CATS.get(event.get("cat"))
        if cat is None:
            return
        ts, dur = event.get("ts"), event.get("dur", 0)
        try:
            start, end = ceil(ts), floor(ts + dur)
        except TypeError:
            return
        if dur < 0:
            return
        if cat is CPU_OP or cat is ANNOTATION:
            name = event.get("name")
            if cat is CPU_OP and type(name) is str and name.startswith("aten::"):     # most events: a busy CPU op
                self.busy.add(start, end)
            else:
                self._cpu(index, cat, str(name), start, end)
        elif cat is RUNTIME:
            corr = (event.get("args") or {}).get("correlation")
            if type(corr) is int:
                self.launches.put(corr, ts)
        else:
            self._gpu(index, cat, event, start, end)

    def _cpu(self, index: int, cat: str, name: str, start: int, end: int) -> None:
        if name.startswith("ProfilerStep") or (cat is ANNOTATION and name[:1] in "SsTtIi"):
            marker = step_number(name)
            if marker:
                self.steps.append(Step(marker[0], start, end, index, marker[1]))
                return
        if is_cpu_comm(name):
            if is_gloo_transfer(name):
                self.transfer.add(start, end)
                self.comms.append(Comm(collective_kind(name), name, start, end, index, -1, -1.0, -1))
            else:
                self.blocked.add(start, end)
        elif is_dataloader(name):
            self.loader.add(start, end)
        elif cat is CPU_OP:
            self.busy.add(start, end)

    def _gpu(self, index: int, cat: str, event: dict[str, Any], start: int, end: int) -> None:
        name = str(event.get("name", ""))
        args = event.get("args") or {}
        if cat is KERNEL:
            klass = self.kernel_classes.get(name)
            if klass is None:
                klass = kernel_class(name)
                if len(self.kernel_classes) < 100_000:
                    self.kernel_classes[name] = klass
        else:
            klass = MEMORY
        corr = args.get("correlation", -1)
        corr = corr if isinstance(corr, int) else -1
        self.k_start.append(start)
        self.k_end.append(end)
        self.k_class.append(klass)
        self.k_corr.append(corr)
        if klass == COMM:
            self.comms.append(_nccl(name, args, start, end, index, corr))
        elif cat is MEMCPY and "HtoD" in name:
            nbytes = args.get("bytes", -1)
            self.copies.append(Copy(start, end, float(nbytes) if isinstance(nbytes, (int, float)) else -1.0, corr,
                                    "Pageable" in name))


def _nccl(name: str, args: dict[str, Any], start: int, end: int, index: int, corr: int) -> Comm:
    """An NCCL kernel; PyTorch >= 2.1 copies the collective's size and group onto the kernel's args."""
    kind = collective_kind(str(args.get("Collective name") or name))
    nelems = max(_number(args.get("In msg nelems")), _number(args.get("Out msg nelems")))
    width = DTYPE_BYTES.get(str(args.get("dtype", "")).lower(), 0)
    nbytes = nelems * width if nelems > 0 and width else -1.0
    group = int(_number(args.get("Group size")))
    return Comm(kind, name.split("(")[0], start, end, index, corr, nbytes, group)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else -1.0
