"""Record the Flight Recorder scenarios (lab/fr_scenarios.py) as incidents: fixtures/incidents/fr-<name>/ holds one
dump per rank exactly as torch wrote it, fixtures/incidents/fr-<name>.expected.yaml the answer.

    python -m lab.fr_record                      # all
    python -m lab.fr_record --only skip --out /tmp/incidents
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from lab.fr_scenarios import BY_NAME, SCENARIOS, FrScenario, rank_main
from lab.record import free_port, torch_version

REPO = Path(__file__).resolve().parent.parent
BUFFER = "64"     # entries per rank: small dumps, and the skip/two-groups runs stay inside it


def record(sc: FrScenario, out_root: Path, torch: str, pyspy: bool = False, as_json: bool = False) -> dict[int, int]:
    """Run the scenario; with pyspy, `py-spy dump` (text and --json) every live rank a second before the dump; with
    as_json, the ranks dump with _dump_fr_trace_json."""
    out = out_root / f"fr-{sc.name}{'-pyspy' if pyspy else ''}{'-json' if as_json else ''}"
    os.environ["FR_DUMP_JSON"] = "1" if as_json else "0"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    os.environ["TORCH_FR_BUFFER_SIZE"] = BUFFER
    ctx = mp.get_context("spawn")
    port = free_port()
    procs = [ctx.Process(target=rank_main, args=(r, sc.name, sc.world, port, str(out))) for r in range(sc.world)]
    for p in procs:
        p.start()
    if pyspy:
        marker, deadline = out / ".dump_at", time.time() + 120
        while not marker.exists() and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(max(0.0, float(marker.read_text() or 0) - 1.5 - time.time()))
        stacks(procs, out)
    for p in procs:
        p.join(timeout=60)
        if p.is_alive():
            p.kill()
    (out / ".dump_at").unlink(missing_ok=True)
    write_answer(sc, out_root, torch, out.name)
    return {r: p.exitcode for r, p in enumerate(procs)}


def stacks(procs: list, out: Path) -> None:
    """py-spy dump of each rank's process, as text and as --json, named by rank."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    for rank, proc in enumerate(procs):
        if not proc.is_alive():
            continue
        for suffix, extra in ((".txt", []), (".json", ["--json"])):
            res = subprocess.run([spy, "dump", *extra, "--pid", str(proc.pid)], capture_output=True, text=True,
                                 timeout=60)
            (out / f"pyspy_rank{rank}{suffix}").write_text(res.stdout or res.stderr)


def _kind(name: str) -> str:
    return "py-spy dump" if name.startswith("pyspy") else "Flight Recorder dump"


def write_answer(sc: FrScenario, out_root: Path, torch: str, folder: str = "") -> None:
    out = out_root / (folder or f"fr-{sc.name}")
    expected = {"cause": sc.cause, "symptom": sc.symptom,
                "also_acceptable": list(sc.also_acceptable), "description": sc.description,
                "produced_by": f"python -m lab.fr_record --only {sc.name}{' --pyspy' if '-pyspy' in out.name else ''}"
                                  f"{' --json' if out.name.endswith('-json') else ''}", "torch": torch,
                "culprit_ranks": list(sc.culprit), "collective": sc.op,
                "evidence": [{"source": p.name, "line": _kind(p.name)} for p in sorted(out.iterdir())
                             if not p.name.startswith(".")]}
    (out_root / f"{out.name}.expected.yaml").write_text(yaml.safe_dump(expected, sort_keys=False, width=110))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=sorted(BY_NAME))
    ap.add_argument("--out", type=Path, default=REPO / "fixtures" / "incidents")
    ap.add_argument("--pyspy", action="store_true", help="also py-spy dump every rank (into fr-<name>-pyspy/)")
    ap.add_argument("--json", action="store_true", help="dump with _dump_fr_trace_json (into fr-<name>-json/)")
    ap.add_argument("--answers-only", action="store_true", help="rewrite the expected.yaml files, record nothing")
    args = ap.parse_args(argv)
    torch = torch_version()
    for sc in SCENARIOS:
        if args.only and sc.name not in args.only:
            continue
        if args.answers_only:
            write_answer(sc, args.out, torch)
            continue
        t0 = time.time()
        codes = record(sc, args.out, torch, args.pyspy, args.json)
        folder = args.out / f"fr-{sc.name}{'-pyspy' if args.pyspy else ''}{'-json' if args.json else ''}"
        dumps = sorted(p.name for p in folder.iterdir())
        print(f"fr-{sc.name}: {time.time() - t0:.1f}s exit codes {codes} dumps {dumps}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
