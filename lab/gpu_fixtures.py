"""Turn the recordings of lab/gpu_record.py (made on a lent GPU machine) into cases of fixtures/cases.

    python -m lab.gpu_fixtures RECORDINGS_DIR          # -> fixtures/cases/<id>/{case.yaml,input/}
    python -m lab.gpu_fixtures RECORDINGS_DIR --check  # exit 1 if a case differs from what the recording gives

The table below is the answer to each recording, written from what the recording injected (never from doctor's
output), and the files of it that a user would upload. Input files are copied byte for byte; a profiler trace is
gzipped (doctor reads .json.gz), nothing else is changed. The machine: one NVIDIA H200, driver 580.159.04, CUDA
13.0, torch 2.11.0+cu130, NCCL 2.28.9, Python 3.12 (the lent machine's own image), 2026-12-04.
"""
from __future__ import annotations

import argparse
import gzip
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "fixtures" / "cases"
MACHINE = "one NVIDIA H200, driver 580.159.04, torch 2.11.0+cu130, NCCL 2.28.9"
HEALTHY_FIX = "none needed: the run is healthy"
FIX_OTHER_PROCESS = "end the process holding the GPU (nvidia-smi --query-compute-apps=pid,used_memory --format=csv)"
FIX_SET_DEVICE = ("call torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) before init_process_group: every rank "
                  "selected cuda:0")
FIX_IFNAME = "set NCCL_SOCKET_IFNAME to an interface that exists on every node (ip -br addr), or unset it"


@dataclass
class Answer:
    case: str                      # case id in fixtures/cases
    recording: str                 # folder of lab/gpu_record.py's output
    cause: str
    symptom: str
    files: list[str]               # what a user would upload; *.json traces are gzipped
    evidence: str
    fix: str = HEALTHY_FIX
    also: list[str] = field(default_factory=list)


ANSWERS: list[Answer] = [
    Answer("healthy-lab-gpu-nvidia-smi", "gpu-healthy-nvidia-smi", "healthy", "none", ["nvidia-smi.txt"],
           "nvidia-smi of an idle H200: no process, no ECC error"),
    Answer("healthy-lab-gpu-nvidia-smi-q", "gpu-healthy-nvidia-smi-q", "healthy", "none", ["nvidia-smi-q.txt"],
           "nvidia-smi -q of a healthy H200 in a VM (PCIe fields N/A, no retired rows, no throttling)"),
    Answer("healthy-lab-gpu-topo", "gpu-healthy-topo", "healthy", "none", ["topo.txt"],
           "nvidia-smi topo -m with one GPU: nothing to link"),
    Answer("healthy-lab-gpu-performance", "gpu-healthy-performance", "healthy", "none", ["performance.txt"],
           "nvidia-smi -q -d PERFORMANCE: P0, only the Idle clock event active"),
    Answer("healthy-lab-gpu-collect-env", "gpu-healthy-collect-env", "healthy", "none", ["collect_env.txt"],
           "collect_env on a working CUDA 13 machine"),
    Answer("healthy-lab-gpu-nccl-1rank-info", "gpu-healthy-nccl-1rank-info", "healthy", "nccl_error",
           ["torchrun.log", "command.txt", "env.txt"], "a complete NCCL 2.28.9 INFO init and all_reduce, exit 0"),
    Answer("healthy-lab-gpu-ddp-trace", "gpu-healthy-ddp-trace", "healthy", "slow_training",
           ["torchrun.log", "command.txt", "lab-trace-healthy-rank0.json"],
           "a CUDA profiler trace of DDP over NCCL with 4 DataLoader workers: kernels back to back"),
    Answer("healthy-lab-gpu-auto-batch-resume", "gpu-oom-checkpoint-resume", "healthy", "oom",
           ["train.log", "resume.log", "command.txt"],
           "an auto batch size search, a checkpoint, a resume with torch.load that fits: both runs exit 0"),
    Answer("rank-lab-gpu-duplicate-gpu-info", "gpu-rank-duplicate-gpu-info", "rank_config_error", "nccl_error",
           ["torchrun.log", "command.txt", "env.txt"],
           "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 60",
           FIX_SET_DEVICE),
    Answer("rank-lab-gpu-duplicate-gpu", "gpu-rank-duplicate-gpu", "rank_config_error", "nccl_error",
           ["torchrun.log", "command.txt"], "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60",
           FIX_SET_DEVICE),
    Answer("rank-lab-gpu-nproc-exceeds-gpus", "gpu-rank-nproc-exceeds-gpus", "rank_config_error", "crash",
           ["torchrun.log", "command.txt"], "torch.AcceleratorError: CUDA error: invalid device ordinal (local_rank 1, "
           "one GPU)", "launch at most as many processes per node as GPUs: --nproc_per_node=1 here"),
    Answer("rank-lab-gpu-visible-devices-missing", "gpu-rank-visible-devices-missing", "rank_config_error", "crash",
           ["torchrun.log", "command.txt", "env.txt"],
           "RuntimeError: No CUDA GPUs are available, with CUDA_VISIBLE_DEVICES=1 on a machine with one GPU (index 0)",
           "CUDA_VISIBLE_DEVICES names a GPU the machine does not have: unset it or list indices that exist "
           "(nvidia-smi -L)"),
    Answer("ifname-lab-gpu-nccl-missing-info", "gpu-nccl-ifname-missing-info", "wrong_socket_ifname", "nccl_error",
           ["torchrun.log", "command.txt", "env.txt"], "Bootstrap : no socket interface found (NCCL_SOCKET_IFNAME=ib0)",
           FIX_IFNAME),
    Answer("ifname-lab-gpu-nccl-missing", "gpu-nccl-ifname-missing", "wrong_socket_ifname", "nccl_error",
           ["torchrun.log", "command.txt", "env.txt"], "Bootstrap : no socket interface found (NCCL_SOCKET_IFNAME=ib0)",
           FIX_IFNAME),
    Answer("oom-act-lab-gpu-batch-raised", "gpu-oom-activations", "oom_activations", "oom", ["train.log", "command.txt"],
           "Tried to allocate 32.00 GiB ... 129.06 GiB is allocated by PyTorch, and 896.00 KiB is reserved by PyTorch "
           "but unallocated, in gelu after the batch was raised to 1048576",
           "a smaller micro-batch with gradient accumulation, or activation checkpointing"),
    Answer("oom-states-lab-gpu-adam-full-replica", "gpu-oom-model-states", "oom_model_states", "oom",
           ["train.log", "command.txt"],
           "Tried to allocate 1024.00 MiB inside Adam's first step (_init_group) with 139.06 GiB allocated: 10.74 B "
           "fp32 parameters, their gradients and Adam's two states do not fit",
           "shard the states (FSDP / ZeRO), mixed precision, an 8-bit optimizer or CPU offload"),
    Answer("frag-lab-gpu-split-segments", "gpu-oom-fragmentation", "oom_fragmentation", "oom",
           ["train.log", "command.txt"],
           "Tried to allocate 24.00 GiB ... 75.00 GiB is allocated by PyTorch, and 45.00 GiB is reserved by PyTorch "
           "but unallocated: the cached free blocks would hold the request, but none is large enough",
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    Answer("stale-lab-gpu-other-process", "gpu-oom-other-process", "stale_process_gpu_memory", "oom",
           ["train.log", "nvidia-smi.txt", "compute-apps.txt"],
           "Process 1028 has 125.51 GiB memory in use; this process has 12.94 GiB; nvidia-smi lists pid 1028",
           FIX_OTHER_PROCESS),
    Answer("stale-lab-gpu-context-oom", "gpu-context-oom-other-process", "stale_process_gpu_memory", "oom",
           ["torchrun.log", "command.txt"],
           "torch.AcceleratorError: CUDA error: out of memory, raised in torch.cuda.set_device before the process "
           "allocated anything: another process held all but 50 MiB of the GPU",
           FIX_OTHER_PROCESS),
    Answer("stale-lab-gpu-nccl-init-oom", "gpu-nccl-init-other-process", "stale_process_gpu_memory", "nccl_error",
           ["torchrun.log", "command.txt", "env.txt"],
           "NCCL WARN Cuda failure 2 'out of memory' ... Failed to CUDA calloc async 608 bytes at NCCL init: another "
           "process held all but 0.7 GiB of the GPU",
           FIX_OTHER_PROCESS),
    Answer("healthy-lab-gpu-expandable-segments", "gpu-fragmentation-expandable-segments", "healthy", "oom",
           ["train.log", "command.txt", "env.txt"],
           "the fragmentation program with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the 24 GiB request fits"),
    Answer("dataloader-lab-gpu-slow-getitem", "gpu-slow-dataloader-trace", "dataloader_bottleneck", "slow_training",
           ["torchrun.log", "dmon.txt", "command.txt", "lab-trace-slow-rank0.json"],
           "the GPU idles between steps (dmon sm 0%), the trace's steps wait in DataLoader __next__ (num_workers=0, "
           "__getitem__ sleeps 2 ms per sample)",
           "raise num_workers, pin_memory, persistent_workers; move decoding off the training process"),
]


def _case_yaml(a: Answer) -> str:
    meta = {"id": a.case, "source": f"lab: python3 lab/gpu_record.py --only {a.recording}  ({MACHINE})",
            "symptom": a.symptom, "cause": a.cause, "also_acceptable": a.also, "fix": a.fix, "evidence": a.evidence,
            "resolution": "lab recording: the fault was injected", "difficulty": "medium", "origin": "lab"}
    return yaml.safe_dump(meta, sort_keys=False, width=1000)


def _inputs(a: Answer, recordings: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for name in a.files:
        data = (recordings / a.recording / name).read_bytes()
        if name.endswith(".json"):
            out["rank" + name.rsplit("-rank", 1)[1] + ".gz"] = gzip.compress(data, 9, mtime=0)
        else:
            out[name] = data
    return out


def write(recordings: Path, check: bool) -> int:
    stale = 0
    for a in ANSWERS:
        inputs = _inputs(a, recordings)
        folder = CASES / a.case
        want = {"case.yaml": _case_yaml(a).encode(), **{f"input/{k}": v for k, v in inputs.items()}}
        if check:
            have = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
            if have != want:
                print(f"{a.case}: differs from the recording", file=sys.stderr)
                stale += 1
            continue
        for rel, data in want.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
        print(f"{a.case}: {a.cause} <- {a.recording} ({', '.join(inputs)})")
    return 1 if stale else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("recordings", type=Path, help="the folder lab/gpu_record.py wrote (--out)")
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    return write(args.recordings, args.check)


if __name__ == "__main__":
    sys.exit(main())
