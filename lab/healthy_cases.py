"""Record the HEALTHY lab cases of fixtures/cases (issue 12) by real runs on this machine.

    python -m lab.healthy_cases                 # all of them -> fixtures/cases/healthy-lab-*/
    python -m lab.healthy_cases --only torchrun-2rank-info
    python -m lab.healthy_cases --list

Each recording runs one real command (torchrun / mp.spawn gloo jobs on loopback, torch.profiler,
collect_env, pip list, doctor collect), keeps its merged stdout+stderr verbatim as the case's
input file, and writes case.yaml (cause: healthy, origin: lab). Nothing is edited afterwards.
A recording whose command exits non-zero is an error (exit 1): a healthy case must come from a
working run.
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "fixtures" / "cases"
PY = sys.executable
TORCHRUN = [PY, "-m", "torch.distributed.run"]
JOB = ["lab/healthy_job.py"]
GLOO_ONLY = {"TORCH_CPP_LOG_LEVEL": "INFO", "TORCH_DISTRIBUTED_DEBUG": "INFO"}


@dataclass
class Recording:
    what: str                       # case id suffix: healthy-lab-<what>
    symptom: str                    # what a user would have asked about
    argv: list[str]
    log_name: str                   # the input file holding stdout+stderr
    env: dict[str, str] = field(default_factory=dict)
    evidence: str = ""
    artefact: str | None = None     # extra file the command writes ({out} in argv), kept in input/
    timeout_s: int = 180


def _torchrun(n: int, *extra: str) -> list[str]:
    return [*TORCHRUN, "--standalone", f"--nproc_per_node={n}", *extra, *JOB]


RECORDINGS: list[Recording] = [
    Recording("torchrun-2rank-info", "init_timeout", _torchrun(2) + ["allreduce"], "torchrun.log", GLOO_ONLY,
              "all ranks pass init_process_group, all_reduce and barrier; torchrun exits 0"),
    Recording("torchrun-3rank-info", "init_timeout", _torchrun(3) + ["allreduce"], "torchrun.log", GLOO_ONLY,
              "3 ranks rendezvous and finish"),
    Recording("torchrun-4rank-info", "init_timeout", _torchrun(4) + ["allreduce"], "torchrun.log", GLOO_ONLY,
              "4 ranks rendezvous and finish"),
    Recording("torchrun-2rank-detail", "hang", _torchrun(2) + ["monitored"], "torchrun.log",
              {"TORCH_CPP_LOG_LEVEL": "INFO", "TORCH_DISTRIBUTED_DEBUG": "DETAIL"},
              "DETAIL debug wrappers and monitored_barrier pass on every rank"),
    Recording("torchrun-4rank-detail", "hang", _torchrun(4) + ["monitored"], "torchrun.log",
              {"TORCH_CPP_LOG_LEVEL": "INFO", "TORCH_DISTRIBUTED_DEBUG": "DETAIL"},
              "monitored_barrier passes on 4 ranks"),
    Recording("torchrun-2rank-plain", "init_timeout", _torchrun(2) + ["allreduce"], "torchrun.log", {},
              "a plain torchrun start with default logging"),
    Recording("torchrun-2rank-tcp-rdzv", "init_timeout",
              [*TORCHRUN, "--nnodes=1", "--nproc_per_node=2", "--rdzv_backend=c10d",
               "--rdzv_endpoint=127.0.0.1:29531", "--rdzv_id=healthy1", *JOB, "allreduce"],
              "torchrun.log", GLOO_ONLY, "c10d rendezvous on an explicit loopback endpoint completes"),
    Recording("ddp-train-2rank-steady", "slow_training", _torchrun(2) + ["train", "40"], "train.log",
              {"TORCH_CPP_LOG_LEVEL": "INFO"}, "step_time_ms steady on both ranks"),
    Recording("ddp-train-4rank-steady", "slow_training", _torchrun(4) + ["train", "30"], "train.log",
              {}, "step_time_ms steady on all four ranks"),
    Recording("profiler-trace-ddp", "slow_training", _torchrun(2) + ["profile", "{out}"], "torchrun.log",
              {}, "a clean CPU profiler trace of a small DDP gloo run", artefact="trace.json"),
    Recording("mp-spawn-2rank", "init_timeout", [PY, *JOB, "spawn", "2"], "spawn.log",
              {"TORCH_CPP_LOG_LEVEL": "INFO", "MASTER_PORT": "29541"}, "mp.spawn of 2 gloo ranks exits 0"),
    Recording("mp-spawn-4rank", "init_timeout", [PY, *JOB, "spawn", "4"], "spawn.log",
              {"TORCH_DISTRIBUTED_DEBUG": "INFO", "MASTER_PORT": "29542"}, "mp.spawn of 4 gloo ranks exits 0"),
    Recording("collect-env", "crash", [PY, "-m", "torch.utils.collect_env"], "collect_env.txt", {},
              "a normal collect_env report"),
    Recording("pip-list", "crash", [PY, "-m", "pip", "list"], "pip_list.txt", {}, "the venv's packages"),
    Recording("doctor-collect", "slow_training",
              [PY, "-m", "doctor", "collect", "--timeout", "20", "-o", "{out}"], "collect.log", {},
              "a doctor collect bundle of this (GPU-less) machine", artefact="bundle.tar.gz"),
]


def _write_case(rec: Recording, tmp: Path, log: str) -> Path:
    case_dir = CASES / f"healthy-lab-{rec.what}"
    if case_dir.exists():
        shutil.rmtree(case_dir)
    inp = case_dir / "input"
    inp.mkdir(parents=True)
    (inp / rec.log_name).write_text(log)
    if rec.artefact:
        src = tmp / rec.artefact
        if rec.artefact.endswith(".json"):
            with open(src, "rb") as f_in, gzip.open(inp / (rec.artefact + ".gz"), "wb") as f_out:
                shutil.copyfileobj(f_in, f_out)
        else:
            shutil.copy(src, inp / rec.artefact)
    env = " ".join(f"{k}={v}" for k, v in rec.env.items())
    meta = {
        "id": case_dir.name,
        "source": f"lab: python -m lab.healthy_cases --only {rec.what}  ({env + ' ' if env else ''}"
                  f"{' '.join(Path(a).name if a == PY else a for a in rec.argv)})",
        "symptom": rec.symptom, "cause": "healthy", "also_acceptable": [],
        "fix": "none needed: the run is healthy", "evidence": rec.evidence,
        "resolution": "lab recording", "difficulty": "medium", "origin": "lab",
    }
    (case_dir / "case.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, width=1000))
    return case_dir


def record(rec: Recording) -> Path:
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        argv = [a.replace("{out}", str(tmp / (rec.artefact or ""))) for a in rec.argv]
        env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", **rec.env}
        proc = subprocess.run(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=rec.timeout_s)
        if proc.returncode != 0:
            raise RuntimeError(f"{rec.what}: exit {proc.returncode}\n{proc.stdout[-2000:]}")
        return _write_case(rec, tmp, proc.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], help="record only this one (repeatable)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for r in RECORDINGS:
            print(f"healthy-lab-{r.what:28s} {r.symptom:14s} {r.evidence}")
        return 0
    chosen = [r for r in RECORDINGS if not a.only or r.what in a.only]
    failed = 0
    for rec in chosen:
        try:
            print(f"recorded {record(rec).relative_to(REPO)}", file=sys.stderr)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            failed += 1
            print(f"FAILED {exc}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
