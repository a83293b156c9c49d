"""Real `doctor cluster` jobs for the tests: torchrun on loopback, or one torchrun per "node" (a network
namespace of lab.netns), with faults injected through lab.netns's helpers. Every process runs under
`timeout`, so a broken run ends by itself."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
DEADLINE_S = 55
PORT = 29500


@dataclass
class JobRun:
    report: dict[str, Any] | None       # rank 0's JSON report (None when it wrote none)
    logs: dict[str, str]                # node/launcher log name -> text
    codes: dict[str, int]
    seconds: float

    def causes_naming(self, node: str) -> set[str]:
        """Causes whose title names `node`."""
        return {d["cause"] for d in (self.report or {}).get("diagnoses", []) if node in d["title"]}

    def causes(self) -> set[str]:
        """Causes some rule found (not the symptom's differential, which names no evidence of its own)."""
        return {d["cause"] for d in (self.report or {}).get("diagnoses", []) if d["rules"]}


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    base = {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "PYTHONPATH": str(REPO),
            "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
    return base | (extra or {})


def torchrun(nnodes: int, nproc: int, node_rank: int, master: str, out: Path, args: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--nnodes", str(nnodes), "--nproc_per_node", str(nproc),
            "--node_rank", str(node_rank), "--master_addr", master, "--master_port", str(PORT),
            "-m", "doctor", "cluster", "--json", "--output", str(out / "report-{rank}.json"), *args]


def run_netns_job(out: Path, nodes: int, args: tuple[str, ...] = (), node_env: Callable[[int], dict[str, str]] = lambda i: {},
                  fault: Callable[[Any], None] | None = None) -> JobRun:
    from lab.netns import Cluster
    started = time.monotonic()
    with Cluster(nodes) as cluster:
        if fault:
            fault(cluster)
        procs = []
        for node in cluster.nodes:
            argv = torchrun(nodes, 1, node.index, cluster.nodes[0].addr, out, args)
            log = open(out / f"node{node.index}.log", "wb")
            procs.append((f"node{node.index}", log, subprocess.Popen(
                ["timeout", "-k", "3", str(DEADLINE_S)] + node.wrap(argv), env=env(node_env(node.index)), cwd=REPO,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)))
        codes = _wait(procs)
    return _result(out, codes, started)


def run_local_job(out: Path, nproc: int, args: tuple[str, ...] = ()) -> JobRun:
    started = time.monotonic()
    argv = torchrun(1, nproc, 0, "127.0.0.1", out, args)
    argv[argv.index("--master_port") + 1] = "0"
    argv[argv.index("--nnodes"):argv.index("--nnodes") + 2] = ["--standalone"]
    for flag in ("--node_rank", "--master_addr", "--master_port"):
        i = argv.index(flag)
        del argv[i:i + 2]
    log = open(out / "torchrun.log", "wb")
    proc = subprocess.Popen(["timeout", "-k", "3", str(DEADLINE_S)] + argv, env=env(), cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return _result(out, _wait([("torchrun", log, proc)]), started)


def _wait(procs: list) -> dict[str, int]:  # type: ignore[type-arg]
    codes: dict[str, int] = {}
    for name, log, proc in procs:
        try:
            codes[name] = proc.wait(timeout=DEADLINE_S + 10)
        except subprocess.TimeoutExpired:
            proc.kill()
            codes[name] = proc.wait()
        log.close()
    return codes


def _result(out: Path, codes: dict[str, int], started: float) -> JobRun:
    report_file = out / "report-0.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else None
    logs = {p.name: p.read_text(errors="replace") for p in out.glob("*.log")}
    return JobRun(report, logs, codes, time.monotonic() - started)
