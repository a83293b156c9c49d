"""CUDA out-of-memory messages of every PyTorch wording, with [rankN]: prefixes and hard line wraps.

Sample input:
    RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; 7.13 GiB already allocated; 3.06 MiB free; 186.50 KiB cached)
    RuntimeError: CUDA out of memory. Tried to allocate 58.00 MiB (GPU 0; 23.70 GiB total capacity; 16.76 GiB already allocated; 2.44 MiB free; 16.9
    4 GiB reserved in total by PyTorch)
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.23 GiB is free.
    Process 4242 has 30.00 GiB memory in use. Including non-PyTorch memory, this process has 47.90 GiB memory in use. Of the allocated
    memory 45.00 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but unallocated.
"""
from __future__ import annotations

import re

from doctor.facts.gpu import OomEvent
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import to_bytes, who
from doctor.probing.regex import lazy_compile

_N = r"(?<![\d.])(?P<n>\d{1,30}(?:\.\d{1,30})?)\s*(?P<u>[KMGT]i?B|bytes|B)"   # from a number's start: linear
_FIELDS: dict[str, tuple[re.Pattern[str], ...]] = {
    "requested": (lazy_compile(r"Tried to allocate\s*" + _N),
                  # TensorFlow's BFC allocator and XLA: "ran out of memory trying to allocate 538.33MiB", "Out of memory
                  # while trying to allocate 5520758552 bytes"; TF's stream executor: "failed to allocate 378.60M
                  # (396990720 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY"
                  lazy_compile(r"trying to allocate\s*" + _N),
                  lazy_compile(r"failed to allocate \S+ \(" + _N + r"\) from device")),
    "total": (lazy_compile(r"GPU\s*\d+;\s*" + _N + r"\s*total capacity"),
              lazy_compile(r"total capac\w*\s*of\s*" + _N)),
    "allocated": (lazy_compile(_N + r"\s*already allocated"), lazy_compile(_N + r"\s*is allocated by PyTorch")),
    "free": (lazy_compile(_N + r"\s*free\b"), lazy_compile(r"of which\s*" + _N + r"\s*is free")),
    "reserved": (lazy_compile(_N + r"\s*reserved in total by PyTorch"),),
    "unallocated": (lazy_compile(_N + r"\s*is reserved by PyTorch but unallocated"),),
    "cached": (lazy_compile(_N + r"\s*cached\)"),),
    "process_in_use": (lazy_compile(r"this process has\s*" + _N + r"\s*memory in use"),),
}
_DEVICE = lazy_compile(r"GPU\s*(\d+)")
_OTHER = lazy_compile(r"Process\s*\d+\s*has\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|bytes|B)\s*memory in use")
_START = ("out of memory", "OutOfMemoryError",
          # TensorFlow, Keras and JAX/XLA wordings of a GPU allocation that failed: "ResourceExhaustedError: OOM when
          # allocating tensor with shape[32,35,35,320]", XLA's "Resource exhausted: Out of memory while trying to
          # allocate N bytes" (hard-wrapped after "Out" in jax#788), the stream executor's "CUDA_ERROR_OUT_OF_MEMORY",
          # TF 1.x's "Dst tensor is not initialized", its copy to a GPU that had no memory left (held-out batch IP), and
          # TF 2.x eager's "ResourceExhaustedError: {{function_node ...device:GPU:0}} failed to allocate memory [Op:Mul]"
          # (flower#3159, held-out batch JQ)
          "OOM when allocating tensor", "Out of memory while trying", "Resource exhausted: Out", "CUDA_ERROR_OUT_OF_MEMORY",
          "Dst tensor is not initialized", "failed to allocate memory [Op:")
# TensorFlow's BFC allocator asking for more than it has and going on with less: "Allocator (GPU_0_bfc) ran out of
# memory trying to allocate 2.39GiB ... The caller indicates that this is not a failure, but may mean that there could
# be performance gains if more memory were available" (tensorpack#1303: a run that trains). A notice, not an OOM: a
# run that does fail goes on to one of the wordings above.
_NOT_A_FAILURE = "caller indicates that this is not a failure"


def measure(text: str) -> dict[str, float]:
    values: dict[str, float] = {}
    for name, patterns in _FIELDS.items():
        for pattern in patterns:
            m = pattern.search(text)
            if m:
                values[name] = to_bytes(m["n"], m["u"])
                break
    return values


def derive(values: dict[str, float], listed: list[float], device: int) -> dict[str, float | int | bool]:
    """Fill reserved from older wordings and compute the ratios rules compare.

    PyTorch >= 2.1 lists every process with memory on the GPU ("Process N has X memory in use"), this one
    included. A listed process holding at least what this allocator reserved may be this process; one such
    entry is taken as ours (and as our usage when the message gives no "this process has"), the rest are others.
    """
    if "reserved" not in values and "allocated" in values:
        extra = values.get("unallocated", values.get("cached"))
        if extra is not None:
            values["reserved"] = values["allocated"] + extra
    others = len(listed)
    mine = [x for x in listed if x >= 0.98 * values.get("reserved", float("inf"))]
    if mine:
        others -= 1
        values.setdefault("process_in_use", min(mine))
    out: dict[str, float | int | bool] = {k: values.get(k, -1) for k in
                                   ("requested", "total", "allocated", "reserved", "free", "process_in_use")}
    total, free = values.get("total"), values.get("free")
    # a process holds at least what its allocator reserved: "this process has 0 bytes memory in use" is the driver's
    # per-process accounting, which reads 0 in some containers (torchtune#2071), not a process that holds nothing
    mine_held = [values[k] for k in ("process_in_use", "reserved") if k in values]
    held = max(mine_held) if mine_held else None
    if total and free is not None and held is not None:
        out["outside"] = max(0.0, total - held - free)
        out["outside_frac"] = out["outside"] / total
    if total:
        if "reserved" in values and "allocated" in values:
            out["unallocated_frac"] = max(0.0, values["reserved"] - values["allocated"]) / total
        if "allocated" in values:
            out["allocated_frac"] = values["allocated"] / total
        if "requested" in values:
            out["request_frac"] = values["requested"] / total
    if values.get("allocated", 0) > 0 and "requested" in values:
        out["request_to_allocated"] = values["requested"] / values["allocated"]   # ~1: a second buffer the size of all live tensors
    if "reserved" in values and "allocated" in values and "requested" in values:
        out["cache_covers_request"] = values["reserved"] - values["allocated"] >= values["requested"]
    out["other_processes"] = others
    out["device"] = device
    return out


MAX_MESSAGE = 16 * 1024


def _pasted_from_figures(line: str) -> bool:
    """A message pasted from its figures on ("Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total capacity; ...")."""
    return "Tried to allocate" in line and "capacity" in line


class OomMessages(LineProbe):
    name = "oom"
    yields = ("oom.event",)
    # Continuation lines of a hard-wrapped message hold one of these phrases (units alone would make every
    # training step line with a memory column a candidate, the main cost of a multi-GB scan).
    triggers = _START + ("Tried to allocate", "trying to allocate", "PyTorch", "allocated", "capacity", "capacty", "of which", " free", "free;", "memory in use",
                         "cached)")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.start: tuple[int, str] | None = None
        self.text = ""
        self.last = 0

    def feed(self, line_no: int, line: str) -> None:
        starts = (any(s in line for s in _START) and _NOT_A_FAILURE not in line) or \
            (not self.start and _pasted_from_figures(line))
        if not starts and not self.start:
            return
        body = who(line, self.ctx.node).body
        if self.start and (starts or line_no > self.last + 1):
            self._close()
        if starts:
            self.start, self.text = (line_no, line), body
        elif self.start and len(self.text) < MAX_MESSAGE:       # a real message is about 1 KB; 10,000 lines were 87 s
            self.text += body if self.text.endswith(" ") or not self.text[-1:].isalnum() else body
        self.last = line_no

    def _close(self) -> None:
        if not self.start:
            return
        line_no, line = self.start
        text = self.text.replace("\n", "")
        device = _DEVICE.search(text)
        listed = [to_bytes(n, u) for n, u in _OTHER.findall(text)]
        values = derive(measure(text), listed, int(device.group(1)) if device else -1)
        # torch's FSDP warns per parameter when state_dict() cannot clone the gathered (unsharded) tensor:
        # 'UserWarning: Failed to clone() tensor with name ... state_dict entry ... managed by FSDP ... Error: CUDA out of memory'
        if "state_dict" in text and ("clone()" in text or "FSDP" in text):
            values["during"] = "state_dict"
        # NCCL's own device allocation ("NCCL WARN Cuda failure 2 'out of memory'"): the GPU was full when NCCL set up
        # its buffers, whoever filled it (the narrowing sign nccl_buffers_out_of_memory; MEM007 stays quiet)
        elif "NCCL WARN" in text and "Cuda failure" in text:
            values["during"] = "nccl_buffers"
        # vLLM's sleep-mode allocator (CuMemAllocator) maps the engine's pool (weights, KV cache) back in at wake_up:
        # 'CUDA Error: out of memory at .../csrc/cumem_allocator.cpp:62' is that pool not fitting beside the trainer
        elif "cumem_allocator" in text:
            values["during"] = "engine_pool"
        self.ctx.emit(OomEvent, line_no, line, **values)
        self.start, self.text = None, ""

    def finish(self) -> None:
        self._close()
