"""`doctor analyze` on 1,024 ranks of Flight Recorder dumps, beside torch's fr_trace on the same set, in one run.

    PYTHONPATH=$PWD .venv/bin/python bench/fr_1024_ranks.py [--ranks 1024] [--culprit 517] [--out DIR]

The dumps are made from a recorded one (fixtures/incidents/fr-healthy/nccl_trace_rank_0: a real torch 2.13 gloo
dump, 10 collectives with their stacks): every rank gets its entries with pg_config naming all ranks; the last
collective is left in flight on every rank, except the culprit, whose entries stop one collective earlier (it
never started it); and rank r's ring buffer lost its r % 4 oldest entries, so buffers are aligned by sequence id.
Each tool runs in its own subprocess (imports counted); wall time and peak RSS (the kernel's high-water mark of
the largest process, wait4). Goals: doctor under 10 s and 300 MB, culprit and sequence id right. Exit 1 when missed.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SOURCE = REPO / "fixtures" / "incidents" / "fr-healthy" / "nccl_trace_rank_0"
GOAL_S, GOAL_MB = 10.0, 300.0


def make_set(folder: Path, ranks: int, culprit: int) -> int:
    """Write the dumps; return the sequence id the culprit never started."""
    from doctor.probing.safe_pickle import safe_load
    with open(SOURCE, "rb") as fh:
        base = safe_load(fh)
    entries = base["entries"]
    last = max(e["collective_seq_id"] for e in entries)
    config = {"0": {"name": "0", "desc": "default_pg", "ranks": str(list(range(ranks)))}}
    for rank in range(ranks):
        mine = [dict(e) for e in entries if rank != culprit or e["collective_seq_id"] < last]
        for e in mine:
            if e["collective_seq_id"] == last:
                e["retired"] = False
        mine = mine[rank % 4:]
        status = {"0": {"last_enqueued_collective": mine[-1]["collective_seq_id"], "last_started_collective": -1,
                        "last_completed_collective": last - 1}}
        dump = {**base, "pg_config": config, "pg_status": status, "entries": mine}
        (folder / f"nccl_trace_rank_{rank}").write_bytes(pickle.dumps(dump))
    return last


def measure(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB: the largest process of the tree, from wait4's rusage) and stdout+stderr.
    (Sampling with psutil every 20 ms cost more than doctor itself on two shared cores, so the kernel's own
    high-water mark is read instead.)"""
    sink = tempfile.TemporaryFile("w+")       # a file, not a pipe: a big report would block on a full pipe
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    _, _, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = 0
    sink.seek(0)
    return elapsed, usage.ru_maxrss / 1024, sink.read()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--culprit", type=int, default=517)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp) / "fr"
        folder.mkdir(parents=True, exist_ok=True)
        seq = make_set(folder, args.ranks, args.culprit)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"{args.ranks} dumps, {size / 2**20:.1f} MiB; culprit rank {args.culprit} never started #{seq}")
        d_s, d_mb, d_out = measure([sys.executable, "-m", "doctor", "analyze", "--json", str(folder)])
        report = json.loads(d_out[d_out.index("{"):])
        title = report["diagnoses"][0]["title"] if report["diagnoses"] else "(nothing)"
        f_s, f_mb, f_out = measure([sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", str(folder)])
        m = re.search(r"Not all ranks joining collective, sequence number: (\d+).*?missing ranks: \{([\d, ]*)\}", f_out,
                      re.S)
        fr_answer = f"#{m.group(1)} missing ranks {{{m.group(2)}}}" if m else (f_out.strip().splitlines() or ["?"])[-1]
    print("| tool | wall s | peak RSS MB | answer |\n|---|---|---|---|")
    print(f"| doctor analyze --json | {d_s:.2f} | {d_mb:.0f} | {title} |")
    print(f"| fr_trace | {f_s:.2f} | {f_mb:.0f} | {fr_answer[:120]} |")
    right = title.startswith(f"rank {args.culprit} never started") and f"#{seq}" in title
    ok = right and d_s < GOAL_S and d_mb < GOAL_MB
    print("goals met" if ok else f"goal missed: right={right} time={d_s:.2f}s peak={d_mb:.0f}MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
