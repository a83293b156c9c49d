#!/usr/bin/env python3
"""Bench: `doctor analyze --json` on a big multi-rank training log, against `grep -c` on the same file.

The log is synthetic but shaped like a real one: 64 ranks on 8 nodes, NCCL_DEBUG=INFO init
(Bootstrap, NET/IB, channels via NET/IB/0/GDRDMA and P2P/CUMEM, Init COMPLETE), `[rankN]:` step
lines, `host:pid:tid [dev]` NCCL lines, a few warnings, and one real failure deep in the file
(rank 7 falls behind: watchdog timeouts, collective progress, a TCPStore socket timeout).

Baseline, same run, same file, page cache warm: `grep -c` of one trigger. Each command runs once to
warm the caches (page cache, doctor's rule cache), then the two take turns --repeat times; the
fastest run of each is reported (the machine may be shared), with its CPU time. doctor's modules
are byte-compiled first, as an installed package's are (PYTHONDONTWRITEBYTECODE would otherwise
make every run compile them again). Goals: doctor's throughput >= 0.2x grep's, doctor's peak RSS < 250 MB,
and the diagnosis names the injected failure. Exit 1 when a goal is missed (this is a report, not a test).

    python bench/analyze_big_log.py [--size-mb 1024] [--out bench/out] [--keep] [--reuse] [--engine native]
    DOCTOR_SCANNER=grep python bench/analyze_big_log.py --reuse   # doctor's prefilter: hyperscan|rg|grep|python
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
GOAL_RATIO = 0.2
GOAL_RSS_MB = 250
EXPECTED_CAUSE = "collective_desync"
GREP_TRIGGER = "NCCL INFO"
NODES = [f"gpu-node{n:03d}" for n in range(1, 9)]
RANKS = 64
FAIL_AT = 0.8                      # where in the file the failure is injected


def who(rank: int) -> tuple[str, int, int]:
    return NODES[rank // 8], 40000 + rank, rank % 8


def nccl(rank: int, text: str, tid_offset: int = 0) -> str:
    host, pid, dev = who(rank)
    return f"{host}:{pid}:{pid + 170 + tid_offset} [{dev}] NCCL INFO {text}\n"


def nccl_init(rank: int) -> list[str]:
    host, _pid, dev = who(rank)
    ip = f"10.1.0.{rank // 8 + 1}"
    lines = [f"[rank{rank}]:NCCL version 2.21.5+cuda12.4\n"] if rank == 0 else []
    lines += [nccl(rank, f"Bootstrap : Using eth0:{ip}<0>"), nccl(rank, "cudaDriverVersion 12040"),
              nccl(rank, f"NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB eth0:{ip}<0>", 1),
              nccl(rank, "Using network IB", 1),
              nccl(rank, f"comm 0x7f3a{rank:04x}00 rank {rank} nranks {RANKS} cudaDev {dev} nvmlDev {dev} busId {dev + 1}8000 commId 0x5e1f3c - Init START", 1),
              nccl(rank, f"Setting affinity for GPU {dev} to ffff,ffffffff", 1)]
    for channel in range(8):
        peer = (rank + 1) % 8 + rank // 8 * 8
        lines.append(nccl(rank, f"Channel {channel:02d}/0 : {rank}[{dev}] -> {peer}[{peer % 8}] via P2P/CUMEM", 1))
        remote = (rank + 8) % RANKS
        lines.append(nccl(rank, f"Channel {channel:02d}/0 : {rank}[{dev}] -> {remote}[{remote % 8}] [send] via NET/IB/{channel % 4}/GDRDMA", 1))
    lines += [nccl(rank, "Connected all rings", 1), nccl(rank, "Connected all trees", 1),
              nccl(rank, f"comm 0x7f3a{rank:04x}00 rank {rank} nranks {RANKS} cudaDev {dev} nvmlDev {dev} busId {dev + 1}8000 commId 0x5e1f3c - Init COMPLETE", 1)]
    return lines


def step_lines(step: int, rng: random.Random) -> str:
    out = []
    for rank in range(RANKS):
        loss = 2.0 + 1.5 / (1 + step / 400) + rng.random() * 0.05
        line = (f"[rank{rank}]: [2025-12-02 10:{step // 60 % 60:02d}:{step % 60:02d}] step {step:6d} | loss {loss:.4f} | "
                f"lr 3.000e-04 | grad_norm {0.6 + rng.random():.3f} | step_time {0.41 + rng.random() * 0.02:.3f}s | "
                f"data_time {0.002 + rng.random() * 0.001:.4f}s | tokens/s {118000 + rng.randrange(4000)}")
        if rank == 0:                      # torchtitan-style memory report on rank 0 only
            line += f" | memory {61 + rng.random():.2f}GiB(76.{rng.randrange(10)}%)"
        out.append(line + "\n")
    return "".join(out)


def sporadic(step: int) -> str:
    """The occasional non-step line a real run prints."""
    if step % 500 == 0:
        rank = step // 500 % RANKS
        return (f"[rank{rank}]:[W1202 10:{step // 60 % 60:02d}:00.{step:06d} reducer.cpp:1400] Warning: Grad strides do not "
                "match bucket view strides. This may indicate grad was not created according to the gradient layout contract\n")
    if step % 1000 == 250:
        return "".join(nccl(r, f"Channel 00/1 : {r}[{r % 8}] -> {(r + 8) % RANKS}[{r % 8}] [receive] via NET/IB/0/GDRDMA/Shared", 2)
                       for r in range(0, RANKS, 8))
    if step % 2000 == 1000:
        return "[rank0]: /opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of the inputs have requires_grad=True. Gradients will be None\n"
    return ""


def failure(seq: int) -> str:
    """Rank 7 stops at collective `seq`; the others ran two more and time out waiting for it."""
    stamp = "E1202 14:03:11.1234567"
    lines = []
    for rank in (0, 3, 7, 12, 31, 63):
        work = seq if rank == 7 else seq + 2
        lines.append(f"[rank{rank}]:[{stamp} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
                     f"timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, "
                     f"Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n")
        lines.append(f"[rank{rank}]:[{stamp} ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] Exception "
                     f"(either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {work}, "
                     f"last completed NCCL work: {seq - 1}.\n")
    lines.append(f"[rank7]:[{stamp} ProcessGroupNCCL.cpp:1443] [PG ID 0 PG GUID 0(default_pg) Rank 7] Failed to check the "
                 "\"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Socket Timeout\n")
    return "".join(lines)


def generate(path: Path, size: int, seed: int = 7) -> int:
    """Write the log; return the line number of the first injected failure line."""
    rng = random.Random(seed)
    head = ["+ torchrun --nnodes=8 --nproc-per-node=8 --rdzv-backend=c10d --rdzv-endpoint=gpu-node001:29500 train.py\n",
            "NCCL_DEBUG=INFO\n"] + [line for rank in range(RANKS) for line in nccl_init(rank)]
    line_no, written, step, fail_line = 0, 0, 0, 0
    with path.open("w", encoding="utf-8") as out:
        block = "".join(head)
        while written < size:
            if not fail_line and written >= size * FAIL_AT:
                fail_line = line_no + block.count("\n") + 1
                block += failure(seq=step * 3 + 1)
            out.write(block)
            written += len(block)
            line_no += block.count("\n")
            step += 1
            block = step_lines(step, rng) + sporadic(step)
    return fail_line


class Run(NamedTuple):
    seconds: float
    cpu: float          # user + system CPU seconds of the command and its children
    rss_mb: float       # peak RSS of the command (or of its largest waited-for child)
    result: subprocess.CompletedProcess


def measure(commands: list[list[str]], repeat: int) -> list[Run]:
    """One run of each to warm the caches, then `repeat` rounds taking turns; the fastest run of each
    (the machine is shared: turns spread any slow spell over all commands alike)."""
    for argv in commands:
        run_once(argv)
    rounds = [[run_once(argv) for argv in commands] for _ in range(repeat)]
    return [min((r[n] for r in rounds), key=lambda run: run.seconds) for n in range(len(commands))]


def run_once(argv: list[str]) -> Run:
    """The child's own rusage comes from wait4 (RUSAGE_CHILDREN would mix all children)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=dict(os.environ, PYTHONPATH=str(REPO)))
        assert proc.stdout is not None
        out = proc.stdout.read()
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        done = subprocess.CompletedProcess(argv, proc.returncode, out, err.read())
        return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, done)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out")
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    parser.add_argument("--reuse", action="store_true", help="reuse a log of this size kept by --keep")
    parser.add_argument("--engine", default="native")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per command after the warm-up (fastest kept)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / f"big-{args.size_mb}mb.log"
    started = time.perf_counter()
    marker = log.with_suffix(".failure-line")
    if args.reuse and log.exists() and marker.exists():
        fail_line = int(marker.read_text())
    else:
        fail_line = generate(log, args.size_mb * 2**20)
        marker.write_text(str(fail_line))
    size_mb = log.stat().st_size / 2**20
    print(f"{'reused' if args.reuse and time.perf_counter() - started < 1 else 'generated'} {log} ({size_mb:.0f} MB, "
          f"failure injected at line {fail_line}) in {time.perf_counter() - started:.1f} s")
    compileall.compile_dir(REPO / "doctor", quiet=1)
    compileall.compile_dir(REPO / "probes", quiet=1)
    try:
        grep, doc = measure([["grep", "-c", "-F", GREP_TRIGGER, str(log)],
                             [sys.executable, "-m", "doctor", "analyze", "--json", "--engine", args.engine, str(log)]],
                            args.repeat)
    finally:
        if not args.keep:
            log.unlink()
            marker.unlink()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return report(size_mb, grep, doc, fail_line)


def report(size_mb: float, grep: Run, doc: Run, fail_line: int) -> int:
    grep_mbs, doc_mbs = size_mb / grep.seconds, size_mb / doc.seconds
    ratio, doc_rss = doc_mbs / grep_mbs, doc.rss_mb
    print(f"grep -c -F '{GREP_TRIGGER}': {grep.seconds:6.2f} s  {grep_mbs:7.0f} MB/s  CPU {grep.cpu:5.2f} s  "
          f"peak RSS {grep.rss_mb:4.0f} MB  ({grep.result.stdout.decode().strip()} lines)")
    scanner = os.environ.get("DOCTOR_SCANNER") or ("hyperscan" if importlib.util.find_spec("hyperscan")
                                                   else "rg" if shutil.which("rg") else "grep")
    print(f"doctor analyze --json:  {doc.seconds:6.2f} s  {doc_mbs:7.0f} MB/s  CPU {doc.cpu:5.2f} s  "
          f"peak RSS {doc_rss:4.0f} MB  exit {doc.result.returncode}  (prefilter: {scanner})")
    print(f"ratio doctor/grep: {ratio:.3f} (goal >= {GOAL_RATIO}); by CPU time {grep.cpu / doc.cpu:.3f}; "
          f"doctor peak RSS {doc_rss:.0f} MB (goal < {GOAL_RSS_MB})")
    misses = []
    if ratio < GOAL_RATIO:
        misses.append(f"throughput {ratio:.3f}x grep < {GOAL_RATIO}x")
    if doc_rss >= GOAL_RSS_MB:
        misses.append(f"peak RSS {doc_rss:.0f} MB >= {GOAL_RSS_MB} MB")
    misses.extend(check_diagnosis(doc.result, fail_line))
    for miss in misses:
        print(f"MISSED: {miss}")
    return 1 if misses else 0


def check_diagnosis(doc, fail_line: int) -> list[str]:
    if doc.returncode != 1:
        return [f"doctor exited {doc.returncode}: {doc.stderr.decode().strip()[:300]}"]
    diagnoses = json.loads(doc.stdout)["diagnoses"]
    top = diagnoses[0]
    lines = sorted({e["line"] for e in top["evidence"]})
    print(f"diagnosis: {top['cause']} ({top['confidence']:.2f}) rules {top['rules']}, evidence lines {lines[:6]}; "
          f"then {[d['cause'] for d in diagnoses[1:4]]}")
    if top["cause"] != EXPECTED_CAUSE:
        return [f"top diagnosis {top['cause']}, expected {EXPECTED_CAUSE}"]
    if not any(fail_line <= line < fail_line + 20 for line in lines):
        return [f"evidence lines {lines[:6]} miss the injected failure at line {fail_line}"]
    return []


if __name__ == "__main__":
    sys.exit(main())
