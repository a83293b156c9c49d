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
import sys
import time
from pathlib import Path

import yaml

from lab.fr_scenarios import BY_NAME, SCENARIOS, FrScenario, rank_main
from lab.record import free_port, torch_version

REPO = Path(__file__).resolve().parent.parent
BUFFER = "64"     # entries per rank: small dumps, and the skip/two-groups runs stay inside it


def record(sc: FrScenario, out_root: Path, torch: str) -> dict[int, int]:
    out = out_root / f"fr-{sc.name}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    os.environ["TORCH_FR_BUFFER_SIZE"] = BUFFER
    ctx = mp.get_context("spawn")
    at = time.time() + 8 + sc.dump_after_s     # imports and rendezvous first, then the fault runs until the dump
    port = free_port()
    procs = [ctx.Process(target=rank_main, args=(r, sc.name, sc.world, port, str(out), at)) for r in range(sc.world)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
        if p.is_alive():
            p.kill()
    write_answer(sc, out_root, torch)
    return {r: p.exitcode for r, p in enumerate(procs)}


def write_answer(sc: FrScenario, out_root: Path, torch: str) -> None:
    out = out_root / f"fr-{sc.name}"
    expected = {"cause": sc.cause, "symptom": sc.symptom,
                "also_acceptable": list(sc.also_acceptable), "description": sc.description,
                "produced_by": f"python -m lab.fr_record --only {sc.name}", "torch": torch,
                "culprit_ranks": list(sc.culprit), "collective": sc.op,
                "evidence": [{"source": p.name, "line": "Flight Recorder dump"} for p in sorted(out.iterdir())]}
    (out_root / f"fr-{sc.name}.expected.yaml").write_text(yaml.safe_dump(expected, sort_keys=False, width=110))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=sorted(BY_NAME))
    ap.add_argument("--out", type=Path, default=REPO / "fixtures" / "incidents")
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
        codes = record(sc, args.out, torch)
        dumps = sorted(p.name for p in (args.out / f"fr-{sc.name}").iterdir())
        print(f"fr-{sc.name}: {time.time() - t0:.1f}s exit codes {codes} dumps {dumps}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
