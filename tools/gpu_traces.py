"""Write GPU-format Kineto traces from the real CPU recordings (no GPU here): synthetic GPU events, real CPU skeleton.

    PYTHONPATH=$PWD .venv/bin/python tools/gpu_traces.py [--cpu fixtures/traces/cpu] [--out fixtures/traces/gpu]

For every rank of a recorded scenario the CPU events are kept as recorded (same steps, same DataLoader waits,
same ops, same timings). What only a GPU run has is added the way Kineto writes it:
- each compute leaf op (aten::mm, aten::add_, ...) launches one kernel: a cuda_runtime cudaLaunchKernel on the
  calling thread, a kernel event on stream 7 that starts when the stream is free, ac2g flow events joining them;
- each batch is copied to the device after the DataLoader returns it: cudaMemcpyAsync + gpu_memcpy HtoD;
- each gloo transfer becomes an NCCL all-reduce: nccl:all_reduce and record_param_comms on the CPU, an
  ncclDevKernel_AllReduce_Sum_f32_RING_LL kernel (or the pre-2.19 ncclKernel_AllReduce_RING_LL_Sum_float) on
  stream 20, lasting the transfer time at the chosen bus bandwidth plus the waiting recorded for that rank
  in the real run (so a straggler stays a straggler);
- deviceProperties, distributedInfo (backend nccl) and GPU process/stream metadata.
The legacy variant uses the PyTorch 1.8-1.10 category spellings (Operator, Runtime, Kernel, Memcpy), old NCCL
kernel names and no distributedInfo. fixtures/traces/gpu/README.md says which fixtures these are.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# ops that only create views, allocate or change metadata launch no kernel
NO_KERNEL = {"aten::empty", "aten::empty_strided", "aten::empty_like", "aten::view", "aten::t", "aten::transpose",
             "aten::as_strided", "aten::detach", "detach", "aten::expand", "aten::resize_", "aten::resolve_conj",
             "aten::reshape", "aten::_unsafe_view", "aten::permute", "aten::select", "aten::slice", "aten::unsqueeze",
             "aten::squeeze", "aten::alias", "aten::lift_fresh", "aten::result_type", "aten::to", "aten::_to_copy",
             "aten::index", "aten::zeros_like", "aten::ones_like", "aten::broadcast_tensors"}
GEMM = "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
ELEMENTWISE = "void at::native::vectorized_elementwise_kernel<4, at::native::{op}, at::detail::Array<char*, 3> >(int, at::native::{op}, at::detail::Array<char*, 3>)"
NCCL_NEW = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
NCCL_OLD = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"
COMPUTE_STREAM, NCCL_STREAM = 7, 20


@dataclass(frozen=True)
class Variant:
    source: str                        # the CPU recording it is built on
    gpu: str = "NVIDIA H100 80GB HBM3"
    gpus_on_host: int = 8
    busbw_gbps: float = 300.0          # the bus bandwidth of the NCCL all-reduces
    bucket_mib: float = 256.0          # gradient bucket size (the metric all-reduce is one float)
    kernel_scale: float = 0.8          # kernel time per CPU-op time
    batch_mib: float = 64.0            # bytes copied host-to-device per batch
    legacy: bool = False


VARIANTS: dict[str, Variant] = {
    "healthy": Variant("healthy"),
    "slow_rank": Variant("slow_rank"),
    "slow_dataloader": Variant("slow_dataloader"),
    "no_nvlink": Variant("healthy", busbw_gbps=9.0),
    "legacy_healthy": Variant("healthy", gpu="NVIDIA A100-SXM4-40GB", legacy=True),
}

_CATS_OLD = {"cpu_op": "Operator", "kernel": "Kernel", "gpu_memcpy": "Memcpy", "cuda_runtime": "Runtime"}


class Builder:
    """Adds GPU events to one rank's CPU events."""

    def __init__(self, variant: Variant, rank: int, pid: int, tid: int) -> None:
        self.v, self.rank, self.pid, self.tid = variant, rank, pid, tid
        self.out: list[dict[str, Any]] = []
        self.corr = 1000
        self.free = {COMPUTE_STREAM: 0.0, NCCL_STREAM: 0.0}

    def cat(self, name: str) -> str:
        return _CATS_OLD.get(name, name) if self.v.legacy else name

    def launch(self, ts: float, api: str, stream: int, name: str, cat: str, dur: float, args: dict[str, Any],
               not_before: float = 0.0) -> float:
        """A runtime call at ts and the GPU activity it starts; returns the activity's end."""
        self.corr += 1
        corr = self.corr
        self.out.append({"ph": "X", "cat": self.cat("cuda_runtime"), "name": api, "pid": self.pid, "tid": self.tid,
                         "ts": round(ts, 3), "dur": 4.0, "args": {"cbid": 211, "correlation": corr}})
        start = max(ts + 5.0, self.free[stream], not_before)
        self.free[stream] = start + dur
        self.out.append({"ph": "X", "cat": self.cat(cat), "name": name, "pid": 0, "tid": stream, "ts": round(start, 3),
                         "dur": round(dur, 3), "args": {"queued": 0, "device": 0, "context": 1, "stream": stream,
                                                        "correlation": corr, **args}})
        self.out.append({"ph": "s", "id": corr, "pid": self.pid, "tid": self.tid, "ts": round(ts, 3), "cat": "ac2g",
                         "name": "ac2g"})
        self.out.append({"ph": "f", "id": corr, "pid": 0, "tid": stream, "ts": round(start, 3), "cat": "ac2g",
                         "name": "ac2g", "bp": "e"})
        return start + dur

    def compute(self, op: dict[str, Any]) -> None:
        name = GEMM if op["name"] in ("aten::mm", "aten::addmm") else \
            ELEMENTWISE.format(op=op["name"].split("::")[-1].strip("_").capitalize() + "Functor<float>")
        self.launch(op["ts"] + min(2.0, op["dur"] / 2), "cudaLaunchKernel", COMPUTE_STREAM, name, "kernel",
                    max(1.5, op["dur"] * self.v.kernel_scale),
                    {"grid": [264, 1, 1], "block": [256, 1, 1], "registers per thread": 90, "shared memory": 0})

    def copy_batch(self, end_of_next: float) -> None:
        nbytes = int(self.v.batch_mib * 2**20)
        self.launch(end_of_next + 1.0, "cudaMemcpyAsync", COMPUTE_STREAM, "Memcpy HtoD (Pageable -> Device)",
                    "gpu_memcpy", nbytes / 12e3, {"bytes": nbytes, "memory bandwidth (GB/s)": 12.0})

    def all_reduce(self, enqueue: float, nelems: int, wait_us: float, world: int) -> None:
        nbytes = nelems * 4
        transfer = nbytes * 2 * (world - 1) / world / (self.v.busbw_gbps * 1e3) if world > 1 else 1.0
        args = {"Collective name": "allreduce", "In msg nelems": nelems, "Out msg nelems": nelems,
                "Group size": world, "dtype": "Float", "In split size": "[]", "Out split size": "[]",
                "Process Group Name": "0", "Process Group Description": "default_pg",
                "Process Group Ranks": str(list(range(world))), "grid": [2, 1, 1], "block": [640, 1, 1]}
        if self.v.legacy:
            args = {k: v for k, v in args.items() if k in ("grid", "block")}
        self.out.append({"ph": "X", "cat": self.cat("cpu_op"), "name": "record_param_comms", "pid": self.pid,
                         "tid": self.tid, "ts": round(enqueue, 3), "dur": 12.0,
                         "args": {k: v for k, v in args.items() if k not in ("grid", "block")}})
        self.launch(enqueue + 6.0, "cudaLaunchKernel", NCCL_STREAM, NCCL_OLD if self.v.legacy else NCCL_NEW, "kernel",
                    max(2.0, transfer + wait_us), args, not_before=self.free[COMPUTE_STREAM])


def kernel_ops(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cpu_op events that launch a kernel: not a view or allocation, and no such op nested inside them."""
    ops = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"),
                 key=lambda e: (e["tid"], e["ts"], -e["dur"]))
    launches = {id(e): e["name"] not in NO_KERNEL and not e["name"].startswith("c10d") for e in ops}
    stack: list[dict[str, Any]] = []
    for e in ops:
        while stack and (stack[-1]["tid"] != e["tid"] or stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]):
            stack.pop()
        if launches[id(e)]:
            for outer in stack:            # an op that launches through an inner op launches nothing itself
                launches[id(outer)] = False
        stack.append(e)
    return [e for e in ops if launches[id(e)]]


def waits(traces: list[dict[str, Any]]) -> list[list[float]]:
    """Per rank, per gloo transfer in order: how much longer it lasted than the same transfer's shortest rank."""
    durs = [[e["dur"] for e in sorted((e for e in t["traceEvents"] if str(e.get("name", "")).startswith("gloo:")),
                                      key=lambda e: e["ts"])] for t in traces]
    count = min(len(d) for d in durs)
    return [[d[k] - min(x[k] for x in durs) for k in range(count)] for d in durs]


def convert(trace: dict[str, Any], variant: Variant, rank: int, world: int, my_waits: list[float]) -> dict[str, Any]:
    events = trace["traceEvents"]
    main = next(e for e in events if str(e.get("name", "")).startswith("ProfilerStep"))
    b = Builder(variant, rank, main["pid"], main["tid"])
    kept = [dict(e, cat=b.cat(e["cat"])) if e.get("cat") == "cpu_op" else e for e in events
            if not str(e.get("name", "")).startswith("gloo:")]
    steps = sorted((e for e in events if str(e.get("name", "")).startswith("ProfilerStep")), key=lambda e: e["ts"])
    gloo = sorted((e for e in events if str(e.get("name", "")).startswith("gloo:")), key=lambda e: e["ts"])
    calls = sorted((e for e in events if e.get("name") == "c10d::allreduce_"), key=lambda e: e["ts"])
    work = [(e["ts"], "op", e) for e in kernel_ops(events)]
    work += [(e["ts"] + e["dur"], "batch", e) for e in events if "DataLoader" in str(e.get("name", ""))]
    step_of = [next((i for i, st in enumerate(steps) if st["ts"] <= c["ts"] < st["ts"] + st["dur"]), -1) for c in calls]
    for k, call in enumerate(calls[:len(gloo)]):
        metric = k + 1 == len(calls) or step_of[k + 1] != step_of[k]     # the step's last all-reduce: one float
        nelems = 1 if metric else int(variant.bucket_mib * 2**20 / 4)
        work.append((call["ts"], "comm", {"nelems": nelems, "wait": my_waits[k] if k < len(my_waits) else 0.0}))
        kept.append({"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": b.pid, "tid": b.tid,
                     "ts": call["ts"] + 1.0, "dur": 20.0, "args": {}})
    for ts, kind, item in sorted(work, key=lambda w: w[0]):
        if kind == "op":
            b.compute(item)
        elif kind == "batch":
            b.copy_batch(ts)
        else:
            b.all_reduce(ts + 2.0, item["nelems"], item["wait"], world)
    return header(trace, variant, rank, world, kept + b.out + gpu_metadata(main["ts"]))


def gpu_metadata(ts: float) -> list[dict[str, Any]]:
    return [{"name": "process_name", "ph": "M", "ts": ts, "pid": 0, "tid": 0, "args": {"name": "python"}},
            {"name": "process_labels", "ph": "M", "ts": ts, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
            {"name": "thread_name", "ph": "M", "ts": ts, "pid": 0, "tid": COMPUTE_STREAM, "args": {"name": "stream 7 "}},
            {"name": "thread_name", "ph": "M", "ts": ts, "pid": 0, "tid": NCCL_STREAM, "args": {"name": "stream 20 "}}]


def header(trace: dict[str, Any], variant: Variant, rank: int, world: int, events: list[dict[str, Any]]) -> dict[str, Any]:
    major = 8 if "A100" in variant.gpu else 9
    device = {"totalGlobalMem": 85_028_896_768, "computeMajor": major, "computeMinor": 0, "maxThreadsPerBlock": 1024,
              "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
              "numSms": 108 if major == 8 else 132, "regsPerMultiprocessor": 65536,
              "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}
    out: dict[str, Any] = {"schemaVersion": 1,
                           "deviceProperties": [{"id": i, "name": variant.gpu, **device} for i in range(variant.gpus_on_host)]}
    if not variant.legacy:
        out["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world, "pg_count": 1,
                                  "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                                                 "pg_size": world, "ranks": list(range(world))}], "nccl_version": "2.21.5"}
        out["host_name"] = trace.get("host_name", "node0")
    out.update({"displayTimeUnit": "ms", "baseTimeNanoseconds": trace.get("baseTimeNanoseconds", 0),
                "traceEvents": events, "traceName": f"rank{rank}.json"})
    return out


def build(name: str, cpu_dir: Path, out_dir: Path) -> list[Path]:
    variant = VARIANTS[name]
    paths = sorted((cpu_dir / variant.source).glob("rank*.json.gz"))
    traces = [json.loads(gzip.decompress(p.read_bytes())) for p in paths]
    world = len(traces)
    written = []
    for rank, (trace, my_waits) in enumerate(zip(traces, waits(traces))):
        target = out_dir / name / f"rank{rank}.json.gz"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(convert(trace, variant, rank, world, my_waits), indent=1).encode()
        target.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", default="fixtures/traces/cpu", help="the recorded CPU traces")
    parser.add_argument("--out", default="fixtures/traces/gpu")
    parser.add_argument("--only", choices=sorted(VARIANTS), action="append")
    args = parser.parse_args(argv)
    for name in args.only or list(VARIANTS):
        for path in build(name, Path(args.cpu), Path(args.out)):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
