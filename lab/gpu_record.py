"""Record real GPU incidents on a lent GPU machine (one GPU): NCCL, CUDA and out-of-memory failures, healthy runs,
nvidia-smi outputs and torch.profiler traces with CUDA activity.

    python3 lab/gpu_record.py --out /tmp/gpu-rec [--only NAME ...] [--list]

Each recording runs real commands (lab/gpu_job.py under torchrun or python3, nvidia-smi), keeps each process's
merged stdout+stderr verbatim in <out>/<name>/<log>, with command.txt, env.txt (the variables the recording set)
and rc.txt (exit codes). Nothing is edited afterwards. Stdlib only: it runs under the lent machine's python3.
The recordings become fixtures by `python -m lab.gpu_fixtures` here (answers written beside them by hand, from
what was injected, as for every lab incident).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
JOB = str(HERE / "gpu_job.py")
PY = sys.executable
TORCHRUN = [PY, "-m", "torch.distributed.run"]
INFO = {"NCCL_DEBUG": "INFO"}


@dataclass
class Step:
    log: str                          # file name of this process's output
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    background: bool = False          # left running while the next steps run; ended at the recording's end
    timeout_s: int = 120


@dataclass
class Recording:
    name: str
    steps: list[Step]
    keep: list[str] = field(default_factory=list)   # files the steps write (absolute), copied into the folder


def _torchrun(n: int, *job: str) -> list[str]:
    return [*TORCHRUN, "--standalone", f"--nproc_per_node={n}", JOB, *job]


def _smi(log: str, *args: str) -> Step:
    return Step(log, ["nvidia-smi", *args], timeout_s=60)


RECORDINGS: list[Recording] = [
    Recording("gpu-healthy-nvidia-smi", [_smi("nvidia-smi.txt")]),
    Recording("gpu-healthy-nvidia-smi-q", [_smi("nvidia-smi-q.txt", "-q")]),
    Recording("gpu-healthy-topo", [_smi("topo.txt", "topo", "-m")]),
    Recording("gpu-healthy-collect-env", [Step("collect_env.txt", [PY, "-m", "torch.utils.collect_env"])]),
    Recording("gpu-healthy-nccl-1rank-info", [Step("torchrun.log", _torchrun(1, "allreduce"), INFO)]),
    Recording("gpu-rank-duplicate-gpu-info", [Step("torchrun.log", _torchrun(2, "allreduce", "--same-device"), INFO)]),
    Recording("gpu-rank-duplicate-gpu", [Step("torchrun.log", _torchrun(2, "allreduce", "--same-device"))]),
    Recording("gpu-rank-nproc-exceeds-gpus", [Step("torchrun.log", _torchrun(2, "allreduce"))]),
    Recording("gpu-nccl-ifname-missing-info",
              [Step("torchrun.log", _torchrun(1, "allreduce"), {**INFO, "NCCL_SOCKET_IFNAME": "ib0"})]),
    Recording("gpu-nccl-ifname-missing", [Step("torchrun.log", _torchrun(1, "allreduce"), {"NCCL_SOCKET_IFNAME": "ib0"})]),
    Recording("gpu-oom-activations", [Step("train.log", [PY, JOB, "oom-activations"])]),
    Recording("gpu-oom-model-states", [Step("train.log", [PY, JOB, "oom-model-states"])]),
    Recording("gpu-oom-fragmentation", [Step("train.log", [PY, JOB, "oom-fragmentation"])]),
    Recording("gpu-oom-checkpoint-resume", [
        Step("train.log", [PY, JOB, "checkpoint-train", "--checkpoint", "/tmp/lab-ckpt.pt"], timeout_s=240),
        Step("resume.log", ["sh", "-c", f"{PY} {JOB} checkpoint-resume --checkpoint /tmp/lab-ckpt.pt "
                                        "--batch $(cat /tmp/lab-ckpt.pt.batch)"], timeout_s=240)]),
    Recording("gpu-oom-other-process", [
        Step("holder.log", [PY, JOB, "hold-memory", "--gib", "125", "--seconds", "35"], background=True),
        Step("sleep.txt", ["sleep", "12"]),
        _smi("nvidia-smi.txt"),
        _smi("compute-apps.txt", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"),
        Step("train.log", [PY, JOB, "small-train"])]),
    Recording("gpu-device-assert", [Step("train.log", [PY, JOB, "device-assert"], {"CUDA_LAUNCH_BLOCKING": "1"})]),
    Recording("gpu-healthy-nvlink-status", [_smi("nvlink.txt", "nvlink", "-s")]),
    Recording("gpu-healthy-performance", [_smi("performance.txt", "-q", "-d", "PERFORMANCE")]),
    Recording("gpu-rank-visible-devices-missing",
              [Step("torchrun.log", _torchrun(1, "allreduce"), {"CUDA_VISIBLE_DEVICES": "1"})]),
    Recording("gpu-healthy-ddp-utilisation", [
        Step("dmon.txt", ["sh", "-c", "sleep 14; nvidia-smi dmon -s u -c 12"], background=True),
        Step("query.csv", ["sh", "-c", "sleep 14; nvidia-smi --query-gpu=timestamp,index,utilization.gpu,"
                                       "utilization.memory --format=csv -l 1 -c 12 2>/dev/null || "
                                       "timeout 12 nvidia-smi --query-gpu=timestamp,index,utilization.gpu,"
                                       "utilization.memory --format=csv -l 1"], background=True),
        Step("torchrun.log", _torchrun(1, "profiled-ddp", "--batch", "512", "--workers", "4", "--seconds", "24",
                                       "--trace", "/tmp/lab-trace-util-rankRANK.json"))]),
    Recording("gpu-snapshot-oom-activations",
              [Step("train.log", [PY, JOB, "oom-activations", "--snapshot", "/tmp/snap-oom_activations.pickle"])],
              keep=["/tmp/snap-oom_activations.pickle"]),
    Recording("gpu-snapshot-oom-model-states",
              [Step("train.log", [PY, JOB, "oom-model-states", "--snapshot", "/tmp/snap-oom_model_states.pickle"])],
              keep=["/tmp/snap-oom_model_states.pickle"]),
    Recording("gpu-snapshot-oom-fragmentation",
              [Step("train.log", [PY, JOB, "oom-fragmentation", "--snapshot", "/tmp/snap-oom_fragmentation.pickle"])],
              keep=["/tmp/snap-oom_fragmentation.pickle"]),
    Recording("gpu-snapshot-healthy", [Step("train.log", [PY, JOB, "oom-activations", "--batch", "4096", "--snapshot",
                                                          "/tmp/snap-healthy.pickle"])],
              keep=["/tmp/snap-healthy.pickle"]),
    Recording("gpu-snapshot-other-process", [
        Step("holder.log", [PY, JOB, "hold-memory", "--gib", "125", "--seconds", "25"], background=True),
        Step("sleep.txt", ["sleep", "10"]),
        Step("train.log", [PY, JOB, "small-train", "--snapshot", "/tmp/snap-other_process.pickle"])],
        keep=["/tmp/snap-other_process.pickle"]),
    Recording("gpu-context-oom-other-process", [
        Step("holder.log", [PY, JOB, "hold-memory", "--leave", "0.05", "--seconds", "25"], background=True),
        Step("sleep.txt", ["sleep", "10"]),
        Step("torchrun.log", _torchrun(1, "allreduce"))]),
    Recording("gpu-nccl-init-other-process", [
        Step("holder.log", [PY, JOB, "hold-memory", "--leave", "0.7", "--seconds", "25"], background=True),
        Step("sleep.txt", ["sleep", "10"]),
        Step("torchrun.log", _torchrun(1, "allreduce"), INFO)]),
    Recording("gpu-fragmentation-expandable-segments",
              [Step("train.log", [PY, JOB, "oom-fragmentation"], {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})]),
    Recording("gpu-healthy-ddp-trace", [
        Step("dmon.txt", ["nvidia-smi", "dmon", "-s", "u", "-c", "20"], background=True),
        Step("torchrun.log", _torchrun(1, "profiled-ddp", "--batch", "512", "--workers", "4", "--seconds", "20",
                                       "--trace", "/tmp/lab-trace-healthy-rankRANK.json"))],
        keep=["/tmp/lab-trace-healthy-rank0.json"]),
    Recording("gpu-slow-dataloader-trace", [
        Step("dmon.txt", ["nvidia-smi", "dmon", "-s", "u", "-c", "20"], background=True),
        Step("torchrun.log", _torchrun(1, "profiled-ddp", "--batch", "512", "--workers", "0", "--item-sleep", "0.002",
                                       "--seconds", "20", "--trace", "/tmp/lab-trace-slow-rankRANK.json"))],
        keep=["/tmp/lab-trace-slow-rank0.json"]),
]


def _command_line(step: Step) -> str:
    env = " ".join(f"{k}={v}" for k, v in step.env.items())
    return f"# {step.log}\n{env + ' ' if env else ''}{' '.join(step.argv)}\n"


def record(rec: Recording, out: Path) -> None:
    folder = out / rec.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    running: list[tuple[Step, subprocess.Popen, object]] = []
    rcs: list[str] = []
    (folder / "command.txt").write_text("".join(_command_line(s) for s in rec.steps))
    (folder / "env.txt").write_text("".join(f"# {s.log}\n" + "".join(f"{k}={v}\n" for k, v in s.env.items())
                                            for s in rec.steps))
    for step in rec.steps:
        sink = (folder / step.log).open("wb")
        env = {**os.environ, **step.env, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(["timeout", str(step.timeout_s), *step.argv], stdout=sink,
                                stderr=subprocess.STDOUT, env=env, cwd="/tmp")
        if step.background:
            running.append((step, proc, sink))
            continue
        rcs.append(f"{step.log} {proc.wait()}")
        sink.close()
    for step, proc, sink in running:
        try:
            rcs.append(f"{step.log} {proc.wait(timeout=step.timeout_s)}")
        except subprocess.TimeoutExpired:
            proc.kill()
            rcs.append(f"{step.log} killed")
        sink.close()
    for path in rec.keep:
        if Path(path).exists():
            shutil.copy(path, folder / Path(path).name)
    (folder / "rc.txt").write_text("\n".join(rcs) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="/tmp/gpu-rec")
    p.add_argument("--only", action="append")
    p.add_argument("--list", action="store_true")
    args = p.parse_args(argv)
    if args.list:
        print("\n".join(r.name for r in RECORDINGS))
        return 0
    out = Path(args.out)
    for rec in RECORDINGS:
        if args.only and rec.name not in args.only:
            continue
        t0 = time.time()
        record(rec, out)
        print(f"{rec.name}: {time.time() - t0:.1f}s {(out / rec.name / 'rc.txt').read_text().strip()!r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
