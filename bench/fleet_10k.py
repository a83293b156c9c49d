"""`doctor fleet` on 10,000 synthetic job uploads: ingest locally and with Ray, report time, bad nodes found.

    python bench/fleet_10k.py [--jobs 10000] [--ray-jobs 10000] [--root /tmp/doctor-fleet-10k] [--reuse]
                              [--out bench/out/fleet_10k.json] [--skip-ray | --only-ray | --only-report]

The uploads (bench/fleet_synth.py: recombined lab recordings with fleet host names, 6 injected bad nodes
repeating a straggler, a decoy node in a large share of the jobs, 4 hostile uploads) are written under
--root, never into the repository. Measured in one run:

* baseline: one `doctor analyze --json` process per upload (what a script around today's doctor does), on
  the first --baseline uploads: jobs/s;
* `doctor fleet ingest` on a local process pool (one worker per core): jobs/s, CPU seconds, peak RSS of the
  whole process tree (driver + workers), sampled every 0.2 s;
* `doctor fleet ingest --ray` (a local Ray instance started by the command) on the first --ray-jobs
  uploads: the same figures (the tree includes Ray's raylet, GCS and workers), and whether every stored
  job equals the local path's;
* `doctor fleet report --json` on the local database: wall time of the whole command (best of 3);
* the suspects against the injected bad nodes: precision, recall, and the decoy not flagged.
Goals: report under 1 s, precision and recall >= 0.9, the decoy not flagged, the hostile uploads skipped,
Ray's stored results equal to the local ones. Exit 1 when one is missed.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
DOCTOR = [sys.executable, "-m", "doctor"]
ENV = dict(os.environ, PYTHONPATH=str(REPO))


def measured(argv: list[str]) -> dict[str, float]:
    """Run argv; wall seconds, CPU seconds and peak RSS (MB) of its whole process tree."""
    started = time.monotonic()
    proc = psutil.Popen(argv, cwd=REPO, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak, cpu = 0, {}
    while proc.poll() is None:
        try:
            tree = [proc] + proc.children(recursive=True)
        except psutil.Error:
            tree = []
        rss = 0
        for p in tree:
            try:
                rss += p.memory_info().rss
                times = p.cpu_times()
                cpu[p.pid] = times.user + times.system + times.children_user + times.children_system
            except psutil.Error:
                pass
        peak = max(peak, rss)
        time.sleep(0.2)
    wall = time.monotonic() - started
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    return {"wall_s": round(wall, 2), "cpu_s": round(sum(cpu.values()), 1), "peak_rss_mb": round(peak / 2**20, 1),
            "rc": proc.returncode, "skipped_lines": [l for l in stderr.splitlines() if l.startswith("doctor: skipped ")][:10],
            "summary": (stderr.splitlines() or [""])[-1]}


def baseline(uploads: list[str]) -> dict[str, float]:
    started = time.monotonic()
    for path in uploads:
        subprocess.run(DOCTOR + ["analyze", "--json", path], cwd=REPO, env=ENV, capture_output=True)
    wall = time.monotonic() - started
    return {"jobs": len(uploads), "wall_s": round(wall, 2), "jobs_per_s": round(len(uploads) / wall, 2)}


def ingest(db: Path, listing: Path, jobs: int, ray: bool) -> dict[str, float]:
    db.unlink(missing_ok=True)
    argv = DOCTOR + ["fleet", "ingest", "--db", str(db), f"@{listing}"] + (["--ray"] if ray else [])
    out = measured(argv)
    out["jobs"] = jobs
    out["jobs_per_s"] = round(jobs / out["wall_s"], 2)
    out["jobs_per_cpu_s"] = round(jobs / out["cpu_s"], 2) if out["cpu_s"] else None
    return out


def stored(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(db) as conn:
        return {row[0]: row[1:] for row in conn.execute(
            "SELECT key, job, started, ended, version, nodes, diagnoses FROM jobs")}


def report_time(db: Path) -> tuple[dict[str, float], dict]:
    """Best of 3 of the whole `doctor fleet report --json` command: wall seconds and CPU seconds (user+sys)."""
    import resource
    best, cpu_best, data = 1e9, 1e9, {}
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        proc = subprocess.run(DOCTOR + ["fleet", "report", "--db", str(db), "--json"], cwd=REPO, env=ENV,
                              capture_output=True, text=True)
        best = min(best, time.monotonic() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_best = min(cpu_best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        data = json.loads(proc.stdout)
    return {"wall_s": round(best, 3), "cpu_s": round(cpu_best, 3)}, data


def judged(report: dict, bad: list[str], decoy: str) -> dict[str, object]:
    suspects = {n["node"] for n in report["nodes"] if n["suspect"]}
    hits = suspects & set(bad)
    decoy_row = next((n for n in report["nodes"] if n["node"] == decoy), {})
    return {"suspects": sorted(suspects), "bad": bad, "precision": round(len(hits) / len(suspects), 3) if suspects else 0.0,
            "recall": round(len(hits) / len(bad), 3), "decoy": decoy, "decoy_flagged": decoy in suspects,
            "decoy_jobs": decoy_row.get("jobs"), "decoy_failures": decoy_row.get("failures"),
            "decoy_p_adjusted": decoy_row.get("evidence", {}).get("p_adjusted"), "jobs_in_report": len(report["jobs"])}


def ray_path(root: Path, truth, count: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Ray on the first `count` uploads; every job it stores must equal the local path's row."""
    ray_list = root / "uploads-ray.txt"
    ray_list.write_text("\n".join(truth.uploads[:count]) + "\n")
    out = ingest(root / "ray.db", ray_list, count, ray=True)
    local, remote = stored(root / "local.db"), stored(root / "ray.db")
    expected = count - len([h for h in truth.hostile if h in truth.uploads[:count]])
    out["stored"] = len(remote)
    out["stored_equal_local"] = len(remote) == expected and all(local.get(k) == row for k, row in remote.items())
    return out


def _regenerate_truth(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The truth of an earlier run's uploads: its truth.json, else regenerated (same seed, same count)."""
    import tempfile
    from fleet_synth import Truth
    if (args.root / "truth.json").exists():
        return Truth(**json.loads((args.root / "truth.json").read_text()))
    from fleet_synth import generate
    with tempfile.TemporaryDirectory(prefix="doctor-fleet-truth-") as scratch:
        truth = generate(Path(scratch), args.jobs)
    uploads = [str(args.root / "uploads" / Path(u).name) for u in truth.uploads]
    hostile = [str(args.root / "uploads" / Path(u).name) for u in truth.hostile]
    return type(truth)(truth.bad, truth.decoy, uploads, hostile)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--ray-jobs", type=int, default=None, help="uploads for the Ray path (default: all)")
    parser.add_argument("--baseline", type=int, default=30)
    parser.add_argument("--root", type=Path, default=Path("/tmp/doctor-fleet-10k"))
    parser.add_argument("--reuse", action="store_true", help="keep the uploads of an earlier run")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--only-report", action="store_true",
                        help="time the report and judge the suspects on an earlier run's local.db (with --reuse)")
    parser.add_argument("--only-ray", action="store_true",
                        help="only the Ray path on --ray-jobs uploads, compared with an earlier run's local.db (--reuse)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "fleet_10k.json")
    args = parser.parse_args()
    from fleet_synth import generate
    started = time.monotonic()
    truth = generate(args.root / "uploads", args.jobs) if not args.reuse else _regenerate_truth(args)
    (args.root / "truth.json").write_text(json.dumps(truth.__dict__))
    if args.only_report:
        timing, report = report_time(args.root / "local.db")
        print(json.dumps({"report": timing, "judged": judged(report, truth.bad, truth.decoy)}, indent=1))
        return 0
    if args.only_ray:
        out = ray_path(args.root, truth, args.ray_jobs or len(truth.uploads))
        print(json.dumps({"ray": out}, indent=1))
        return 0 if out["stored_equal_local"] else 1
    results: dict[str, object] = {"jobs": args.jobs, "generate_s": round(time.monotonic() - started, 1),
                                  "cores": len(os.sched_getaffinity(0)), "load_avg_before": os.getloadavg()}
    listing = args.root / "uploads.txt"
    listing.write_text("\n".join(truth.uploads) + "\n")
    results["baseline_analyze_per_upload"] = baseline(truth.uploads[:args.baseline])
    print("baseline", results["baseline_analyze_per_upload"], flush=True)
    local_db = args.root / "local.db"
    results["local"] = ingest(local_db, listing, len(truth.uploads), ray=False)
    print("local", results["local"], flush=True)
    results["report_s"], report = report_time(local_db)
    results["judged"] = judged(report, truth.bad, truth.decoy)
    print("report", results["report_s"], results["judged"], flush=True)
    ok = results["report_s"]["wall_s"] < 1.0 and results["judged"]["precision"] >= 0.9 and results["judged"]["recall"] >= 0.9
    ok = ok and not results["judged"]["decoy_flagged"] and len(results["local"]["skipped_lines"]) == len(truth.hostile)
    if not args.skip_ray:
        results["ray"] = ray_path(args.root, truth, args.ray_jobs or len(truth.uploads))
        print("ray", results["ray"], flush=True)
        ok = ok and results["ray"]["stored_equal_local"]
    results["load_avg_after"] = os.getloadavg()
    results["goals_met"] = ok
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
