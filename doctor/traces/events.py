"""What a Kineto trace event is: its class (CPU op, kernel, copy, runtime call), and for names, whether it is a
step marker, a DataLoader wait, a collective, and which collective.

Categories changed spelling across PyTorch versions (1.8-1.10: "Operator", "Kernel", "Memcpy", "Runtime";
1.11+: "cpu_op", "kernel", "gpu_memcpy", "cuda_runtime"); both map to the same class here. NCCL kernels are
"ncclKernel_AllReduce_RING_LL_Sum_float(...)" before NCCL 2.19 and "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)"
after; both match the one pattern HolisticTraceAnalysis uses (^nccl.*Kernel).
"""
from __future__ import annotations

import re

CPU_OP, ANNOTATION, KERNEL, MEMCPY, MEMSET, RUNTIME = "cpu_op", "annotation", "kernel", "memcpy", "memset", "runtime"

CATEGORIES: dict[str, str] = {
    "cpu_op": CPU_OP, "operator": CPU_OP,
    "user_annotation": ANNOTATION,
    "kernel": KERNEL,
    "gpu_memcpy": MEMCPY, "memcpy": MEMCPY,
    "gpu_memset": MEMSET, "memset": MEMSET,
    "cuda_runtime": RUNTIME, "runtime": RUNTIME, "cuda_driver": RUNTIME,
}

# kernel classes, as HolisticTraceAnalysis defines them (hta/utils/utils.py)
COMPUTE, COMM, MEMORY, OTHER = 0, 1, 2, 3
_NCCL_KERNEL = re.compile(r"nccl.*Kernel")
_MEMORY_KERNEL = re.compile(r"Memcpy|Memset|dma")
_NOT_COMPUTE = re.compile(r"(nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


def kernel_class(name: str) -> int:
    if _NCCL_KERNEL.match(name):
        return COMM
    if _MEMORY_KERNEL.match(name):
        return MEMORY
    if not _NOT_COMPUTE.match(name):
        return COMPUTE
    return OTHER


_PROFILER_STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)")
_USER_STEP = re.compile(r"^(?:train(?:ing)?[ _]?)?(?:step|iteration|iter)[ _#:]*(\d+)$", re.IGNORECASE)


def step_number(name: str) -> tuple[int, bool] | None:
    """(number, is_profiler_step) for a step marker: ProfilerStep#N, or a record_function named like 'step 12'."""
    m = _PROFILER_STEP.match(name)
    if m:
        return int(m.group(1)), True
    m = _USER_STEP.match(name)
    return (int(m.group(1)), False) if m else None


def is_dataloader(name: str) -> bool:
    """The training loop waiting for its next batch: enumerate(DataLoader)#...__next__ and framework wrappers."""
    low = name.lower()
    return "dataloader" in low and ("next" in low or "enumerate" in low)


# CPU-side collective ops: the calling thread is inside the collective (gloo transfers, c10d ops, the
# record_param_comms marker, nccl:* enqueue annotations).
_CPU_COMM = re.compile(r"^(c10d::|gloo:|nccl:|record_param_comms$|c10d\.|ProcessGroup)")


def is_cpu_comm(name: str) -> bool:
    return bool(_CPU_COMM.match(name))


def is_gloo_transfer(name: str) -> bool:
    """gloo:<op> runs on a gloo worker thread for the whole transfer, waiting for peers included."""
    return name.startswith("gloo:")


_KIND_WORDS: tuple[tuple[str, str], ...] = (
    ("allreduce", "all_reduce"), ("all_reduce", "all_reduce"),
    ("reducescatter", "reduce_scatter"), ("reduce_scatter", "reduce_scatter"),
    ("allgather", "all_gather"), ("all_gather", "all_gather"),
    ("alltoall", "all_to_all"), ("all_to_all", "all_to_all"),
    ("sendrecv", "send_recv"), ("send", "send_recv"), ("recv", "send_recv"),
    ("broadcast", "broadcast"), ("reduce", "reduce"), ("barrier", "barrier"), ("gather", "gather"),
    ("scatter", "scatter"),
)


def collective_kind(name: str) -> str:
    """'all_reduce', 'all_gather', ... from a gloo op, an NCCL kernel name or a 'Collective name' argument."""
    low = name.lower()
    if low.startswith("nccl"):
        low = low.split("(")[0].replace("ncclkernel_", "").replace("nccldevkernel_", "")
    elif ":" in low:
        low = low.split(":", 1)[1]
    for word, kind in _KIND_WORDS:
        if low.startswith(word):
            return kind
    return low.split("_")[0] or "collective"


DTYPE_BYTES: dict[str, int] = {
    "float": 4, "float32": 4, "f32": 4, "int": 4, "int32": 4, "double": 8, "float64": 8, "long": 8, "int64": 8,
    "half": 2, "float16": 2, "f16": 2, "bfloat16": 2, "bf16": 2, "short": 2, "byte": 1, "char": 1,
    "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1,
}


def bus_factor(kind: str, group: int) -> float:
    """nccl-tests' bus-bandwidth factor: what each link carries relative to the message size."""
    if group < 2:
        return 1.0
    if kind == "all_reduce":
        return 2 * (group - 1) / group
    if kind in ("all_gather", "reduce_scatter", "all_to_all"):
        return (group - 1) / group
    return 1.0
