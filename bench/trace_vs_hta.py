"""Doctor's trace figures against HolisticTraceAnalysis 0.5 in one run: per-rank agreement, time, peak memory.

    PYTHONPATH=$PWD .venv/bin/python bench/trace_vs_hta.py [--gb 1.0] [--out bench/out/traces]

Needs the bench extra (`pip install '.[bench]'`: holistictraceanalysis 0.5, psutil). Three parts:
1. agreement: on the same multi-rank GPU-format traces, doctor's per-rank idle / compute / non-compute /
   communication shares of the kernel span and its communication/computation overlap against HTA's
   get_temporal_breakdown, get_comm_comp_overlap and per-rank kernel-type time (goal: within 1 point);
2. what HTA cannot read that doctor can (CPU-only gloo traces; traces without distributedInfo);
3. a 1 GB trace set made by replicating a real trace's events (4 ranks, plain JSON, not committed): wall time
   and peak memory (RSS summed over the process tree, sampled every 50 ms) of `doctor analyze`'s path and of
   HTA (goal: doctor at least 3x faster, at most 1/5 of HTA's peak memory).
Each tool runs in its own subprocess, so imports and HTA's worker pool are counted.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIGURES = ("idle", "compute", "non_compute", "comm", "overlap")
AGREEMENT_SETS = ("healthy", "slow_rank", "slow_dataloader", "no_nvlink", "comm_exposed")
TOLERANCE = 1.0
CPU_SECONDS: dict[str, float] = {}      # CPU time of the last measured run of each tool (all its processes)


def doctor_worker(folder: str) -> dict[str, dict[str, float]]:
    from doctor.diagnose import diagnose_files
    from doctor.facts.perf import TraceRank
    report = diagnose_files([folder])
    return {str(f.rank): {"idle": f.hta_idle_pct, "compute": f.hta_compute_pct, "non_compute": f.hta_non_compute_pct,
                          "comm": f.hta_comm_pct, "overlap": f.overlap_pct}
            for f in report.facts if isinstance(f, TraceRank)} | {"_top": report.diagnoses[0].cause if report.diagnoses else ""}


def hta_worker(folder: str) -> dict[str, dict[str, float]]:
    import logging
    logging.disable(logging.WARNING)
    from hta.analyzers.breakdown_analysis import BreakdownAnalysis
    from hta.trace_analysis import TraceAnalysis
    from hta.utils.utils import KernelType, get_kernel_type
    analysis = TraceAnalysis(trace_dir=folder)
    breakdown = analysis.get_temporal_breakdown(visualize=False).set_index("rank")
    overlap = analysis.get_comm_comp_overlap(visualize=False).set_index("rank")
    symbols = analysis.t.symbol_table.get_sym_table()
    out: dict[str, dict[str, float]] = {}
    for rank, frame in analysis.t.traces.items():
        kernels = frame[frame["stream"].ne(-1)].copy()
        kernels["kernel_type"] = kernels["name"].map(lambda i: get_kernel_type(symbols[i]))
        types = BreakdownAnalysis._get_gpu_kernel_type_time(
            kernels, [KernelType.COMPUTATION.name, KernelType.COMMUNICATION.name])
        comm = float(types[types["kernel_type"].str.contains(KernelType.COMMUNICATION.name)]["sum"].sum())
        row = breakdown.loc[rank]
        out[str(rank)] = {"idle": float(row["idle_time_pctg"]), "compute": float(row["compute_time_pctg"]),
                          "non_compute": float(row["non_compute_time_pctg"]),
                          "comm": round(100 * comm / float(row["kernel_time(us)"]), 2),
                          "overlap": float(overlap.loc[rank, "comp_comm_overlap_pctg"])}
    return out


def measured(tool: str, folder: Path) -> tuple[dict, float, int, str]:
    """Run one worker in a subprocess: (its JSON, wall seconds, peak RSS of the process tree, stderr tail)."""
    import psutil
    import tempfile
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:   # files: a full pipe would stall it
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, __file__, "--worker", tool, str(folder)], stdout=out, stderr=err,
                                text=True, env=env)
        peak = 0
        cpu: dict[int, float] = {}
        root = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                tree = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
                for p in tree:
                    times = p.cpu_times()
                    cpu[p.pid] = times.user + times.system
            except psutil.Error:
                pass
            time.sleep(0.05)
        wall = time.perf_counter() - start
        CPU_SECONDS[tool] = sum(cpu.values())
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read().strip()
    last = errors.splitlines()[-1] if errors else ""
    try:
        return json.loads(text), wall, peak, last
    except json.JSONDecodeError:
        return {}, wall, peak, last


def plain_copies(source: Path, target: Path) -> Path:
    """HTA wants one folder per job; write the gzipped fixtures there as they are."""
    import shutil
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("rank*.json.gz")):
        shutil.copy(path, target / path.name)
    return target


def agreement(out: Path) -> float:
    from tools.gpu_traces import VARIANTS, Variant, build
    VARIANTS.setdefault("comm_exposed", Variant("comm_exposed"))
    print("\n1. Agreement per rank, % of the kernel span (overlap: % of communication time)")
    print(f"{'trace set':<16}{'rank':>5}  " + "  ".join(f"{f + ' doc/hta':>22}" for f in FIGURES) + "  max diff")
    worst = 0.0
    for name in AGREEMENT_SETS:
        if name == "comm_exposed":
            build(name, REPO / "fixtures/traces/cpu", out / "gpu")
            folder = out / "gpu" / name
        else:
            folder = plain_copies(REPO / "fixtures/traces/gpu" / name, out / "agree" / name)
        doc, hta = measured("doctor", folder)[0], measured("hta", folder)[0]
        for rank in sorted(k for k in hta if not k.startswith("_")):
            d, h = doc.get(rank, {}), hta[rank]
            diffs = [abs(d.get(f, -99) - h[f]) for f in FIGURES]
            worst = max(worst, *diffs)
            cells = "  ".join(f"{d.get(f, -1):>10.2f}/{h[f]:<11.2f}" for f in FIGURES)
            print(f"{name:<16}{rank:>5}  {cells}  {max(diffs):.2f}")
    print(f"largest difference: {worst:.2f} points (goal <= {TOLERANCE})")
    return worst


def unreadable(out: Path) -> None:
    print("\n2. Traces doctor reads and HTA does not")
    for label, folder in (("CPU-only gloo traces (fixtures/traces/cpu/healthy)", REPO / "fixtures/traces/cpu/healthy"),
                          ("no distributedInfo (fixtures/traces/gpu/legacy_healthy)", REPO / "fixtures/traces/gpu/legacy_healthy")):
        copy = plain_copies(folder, out / "unreadable" / folder.name)
        doc, hta, err = measured("doctor", copy)[0], *measured("hta", copy)[::3]
        ranks_doc = sorted(k for k in doc if not k.startswith("_"))
        ranks_hta = sorted(hta)
        print(f"- {label}: doctor ranks {ranks_doc}, top diagnosis {doc.get('_top') or 'none'}; "
              f"HTA ranks {ranks_hta or 'none'}" + (f", error: {err[:160]}" if err and not hta else ""))


def replicate(source: Path, target: Path, rank: int, size: int, steps: int = 6) -> None:
    """A Kineto trace of about `size` bytes: the source's events repeated later and later in time (ids kept
    dense), grouped into `steps` long ProfilerSteps, as a big model's trace has few steps of many kernels."""
    import gzip
    trace = json.loads(gzip.decompress(source.read_bytes()))
    events = trace.pop("traceEvents")
    trace.setdefault("distributedInfo", {})["rank"] = rank
    timed = [e for e in events if isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M"
             and not str(e.get("name", "")).startswith("ProfilerStep")]
    meta = [e for e in events if e.get("ph") == "M"]
    first = min(e["ts"] for e in timed)
    span = max(e["ts"] + e.get("dur", 0) for e in timed) - first + 1000.0
    ids = [e.get("id", 0) for e in events] + [e["args"]["correlation"] for e in events
                                                if isinstance(e.get("args"), dict) and "correlation" in e["args"]]
    stride = max(i for i in ids if isinstance(i, int)) + 1          # ids stay dense, as CUPTI hands them out
    per_copy = sum(len(json.dumps(e, indent=1)) + 2 for e in timed)
    copies = max(steps, size // per_copy)
    main = next(e for e in events if str(e.get("name", "")).startswith("ProfilerStep"))
    with target.open("w") as fh:
        fh.write(json.dumps(trace, indent=1)[:-2] + ',\n "traceEvents": [\n')
        fh.write(",\n".join(json.dumps(e, indent=1) for e in meta))
        for rep in range(copies):
            for e in timed:
                e2 = dict(e, ts=e["ts"] + rep * span)
                if "id" in e2:
                    e2["id"] = e["id"] + rep * stride
                if isinstance(e2.get("args"), dict) and "correlation" in e2["args"]:
                    e2["args"] = dict(e2["args"], correlation=e2["args"]["correlation"] + rep * stride)
                fh.write(",\n" + json.dumps(e2, indent=1))
        block = copies // steps
        for k in range(steps):
            reps = block if k < steps - 1 else copies - block * (steps - 1)
            marker = dict(main, name=f"ProfilerStep#{k + 1}", ts=first + k * block * span - 1.0, dur=reps * span)
            fh.write(",\n" + json.dumps(marker, indent=1))
        fh.write("\n]\n}\n")


def big(out: Path, gigabytes: float) -> None:
    folder = out / "big"
    folder.mkdir(parents=True, exist_ok=True)
    per_rank = int(gigabytes * 1e9 / 4)
    sources = sorted((REPO / "fixtures/traces/gpu/healthy").glob("rank*.json.gz"))
    for rank in range(4):
        target = folder / f"rank{rank}.json"
        if not target.exists() or abs(target.stat().st_size - per_rank) > per_rank * 0.05:
            replicate(sources[rank % len(sources)], target, rank, per_rank)
    total = sum(p.stat().st_size for p in folder.glob("*.json"))
    print(f"\n3. Speed and memory on {total / 1e9:.2f} GB of traces (4 ranks, replicated from fixtures/traces/gpu/healthy)")
    doc, doc_s, doc_rss, _ = measured("doctor", folder)
    doc_cpu = CPU_SECONDS["doctor"]
    hta, hta_s, hta_rss, err = measured("hta", folder)
    hta_cpu = CPU_SECONDS["hta"]
    print(f"   doctor analyze path: {doc_s:7.1f} s wall, {doc_cpu:7.1f} s CPU, peak {doc_rss / 2**20:8.0f} MiB")
    print(f"   HTA 0.5            : {hta_s:7.1f} s wall, {hta_cpu:7.1f} s CPU, peak {hta_rss / 2**20:8.0f} MiB"
          + (f"  ({err[:120]})" if not hta else ""))
    if hta:
        diff = max(abs(doc[r][f] - hta[r][f]) for r in hta for f in FIGURES)
        print(f"   speed-up {hta_s / doc_s:.1f}x wall, {hta_cpu / max(doc_cpu, 1e-9):.1f}x CPU (goal >= 3); memory "
              f"{doc_rss / hta_rss:.3f} of HTA's (goal <= 0.2); figures differ by at most {diff:.2f} points")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "bench" / "out" / "traces"))
    parser.add_argument("--gb", type=float, default=1.0, help="size of the replicated trace set (0 skips part 3)")
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        tool, folder = args.worker
        print(json.dumps(doctor_worker(folder) if tool == "doctor" else hta_worker(folder)))
        return 0
    out = Path(args.out)
    worst = agreement(out)
    unreadable(out)
    if args.gb > 0:
        big(out, args.gb)
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
