"""Fan-out of `doctor cluster`: facts of N ranks gathered to rank 0 and diagnosed, N = 2, 4, 8, 16.

Two measurements in one run:

* job: `torchrun --standalone --nproc_per_node N -m doctor cluster` (gloo, CPU; active tests off), rank 0's
  own phase timings: `collect` (sizes all_gather + padded gather of the JSON payloads) and `diagnose` (the
  rule base is loaded before, in its own phase), plus
  the payload sizes it received. All N ranks share this machine's cores, so the wall time is mostly N torch
  start-ups; the phases are what scales with N.
* baseline "in-process, no transport": the same kind of payloads (this node's real facts for each node's first
  rank, the rank facts for the others, 8 ranks per node) decoded and diagnosed in one process, for the same
  N and on to 1024: rank 0's compute share without any network, and the figure the paper estimate builds on.

    python bench/cluster_fanout.py [--ranks 2 4 8 16] [--scale 64 256 1024] [--out bench/out/cluster_fanout.json]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def job(n: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="doctor-fanout-") as tmp:
        out = Path(tmp) / "report.json"
        argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(n),
                "-m", "doctor", "cluster", "--json", "--output", str(out), "--bandwidth-seconds", "0",
                "--pair-seconds", "0", "--no-timing", "--rendezvous-timeout", "120", "--timeout", "240"]
        env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
        started = time.monotonic()
        proc = subprocess.run(["timeout", "-k", "5", "300"] + argv, cwd=REPO, env=env, capture_output=True, text=True)
        wall = time.monotonic() - started
        if not out.exists():
            return {"ranks": n, "error": proc.stderr[-1500:]}
        cluster = json.loads(out.read_text())["cluster"]
    phases = cluster["phases"]
    return {"ranks": n, "reported": cluster["ranks"], "wall_s": round(wall, 2), "collect_s": phases.get("collect"),
            "diagnose_s": phases.get("diagnose"), "load_rules_s": phases.get("load_rules"), "rendezvous_s": phases.get("rendezvous"),
            "payload_mean_b": cluster["payload_bytes"]["mean"], "payload_max_b": cluster["payload_bytes"]["max"],
            "payload_total_b": cluster["payload_bytes"]["total"], "facts": cluster["facts"]}


def in_process(n: int, per_node: int = 8) -> dict[str, object]:
    """Decode + diagnose n payloads in one process (no transport)."""
    from dataclasses import replace

    from doctor.cluster import node_facts, wire
    from doctor.diagnose import diagnose_facts
    from doctor.facts.cluster import ClusterRank, RankTiming
    base = node_facts.gather()
    payloads = []
    for rank in range(n):
        node = f"node{rank // per_node:04d}"
        facts = [ClusterRank(node=node, rank=rank, world_size=n, local_rank=rank % per_node),
                 RankTiming(node=node, rank=rank, work_s=0.02, reps=5, device="cpu")]
        if rank % per_node == 0:
            facts = [replace(f, node=node) for f in base] + facts
        payloads.append(wire.encode(rank, node, facts))
    started = time.perf_counter()
    facts = [f for p in payloads for f in wire.decode(p).facts]
    decoded = time.perf_counter() - started
    report = diagnose_facts(facts)
    total = time.perf_counter() - started
    sizes = [len(p) for p in payloads]
    return {"ranks": n, "decode_s": round(decoded, 4), "decode_and_diagnose_s": round(total, 4), "facts": len(report.facts),
            "payload_leader_b": sizes[0], "payload_other_b": sizes[1] if n > 1 else 0, "payload_total_b": sum(sizes),
            "padded_gather_b": max(sizes) * n, "diagnoses": [d.cause for d in report.diagnoses]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, nargs="*", default=[2, 4, 8, 16])
    parser.add_argument("--scale", type=int, nargs="*", default=[64, 256, 1024])
    parser.add_argument("--out", default=str(REPO / "bench" / "out" / "cluster_fanout.json"))
    args = parser.parse_args()
    from doctor.diagnose import rule_base
    rule_base()                                     # load the rules once, outside the timings
    jobs, base = [], []
    print(f"{'N':>5} {'wall s':>7} {'collect s':>9} {'diagnose s':>10} {'payload mean/max B':>19}   "
          f"| baseline in-process: decode+diagnose s")
    for n in args.ranks:
        j, b = job(n), in_process(n)
        jobs.append(j)
        base.append(b)
        if "error" in j:
            print(f"{n:>5} failed: {j['error']}")
            continue
        print(f"{n:>5} {j['wall_s']:>7} {j['collect_s']:>9} {j['diagnose_s']:>10} "
              f"{j['payload_mean_b']:>9}/{j['payload_max_b']:<9}   | {b['decode_and_diagnose_s']}")
    for n in args.scale:
        b = in_process(n)
        base.append(b)
        print(f"{n:>5} {'':>7} {'':>9} {'':>10} {'':>19}   | {b['decode_and_diagnose_s']} "
              f"({b['facts']} facts, padded gather {b['padded_gather_b'] / 2**20:.1f} MiB)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"jobs": jobs, "in_process": base, "cpus": os.cpu_count()}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
