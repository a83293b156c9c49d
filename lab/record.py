"""Run one scenario for real and record it as an incident directory.

``record(scenario, out_dir)`` builds the scenario's nodes (if any), injects its
network faults, starts its processes (each under ``timeout``, so nothing
outlives the scenario's deadline), and writes:

* ``<log>`` for every process: its merged stdout/stderr, untouched;
* ``command.txt``: how each process was launched (env + argv, as a user types it);
* ``env.txt``: the launch environment per process, ``NAME=value`` lines under a
  ``# <log>`` header;
* ``<name>.expected.yaml`` (beside the folder): cause, symptom, also_acceptable, description, produced_by,
  torch, and ``evidence`` (the first log line matching each expected pattern).
"""
from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import yaml

from lab.netns import Cluster, netns_unavailable_reason
from lab.scenarios import Proc, Scenario

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    scenario: str
    out_dir: Path
    returncodes: dict[str, int]
    seconds: float
    missing: list[str]  # expected texts not found in any log

    @property
    def ok(self) -> bool:
        return not self.missing


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def torch_version() -> str:
    res = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                         capture_output=True, text=True, timeout=60)
    return res.stdout.strip() or "unknown"


# libraries some scenarios run, installed off the shared venv (`pip install --no-deps --target DIR ...`, lab/README.md)
LIBRARY_PATHS: dict[str, str] = {"accelerate": "LAB_ACCELERATE_PATH", "lightning": "LAB_LIGHTNING_PATH",
                                 "tensorflow": "LAB_TENSORFLOW_PATH", "deepspeed": "LAB_DEEPSPEED_PATH"}


def library_site(name: str) -> str:
    """Where a scenario's library is installed; RuntimeError with the variable to set when it is not."""
    var = LIBRARY_PATHS[name]
    site = os.environ.get(var, "")
    if not site or not (Path(site) / name).is_dir():
        raise RuntimeError(f"needs {name}: set {var} to a folder holding it (lab/README.md, Needs)")
    return site


def base_env() -> dict[str, str]:
    """A small, clean environment: nothing of the caller's leaks into the runs."""
    return {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "PYTHONPATH": str(REPO),
            "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}


def fill(text: str, values: dict[str, str]) -> str:
    for key, val in values.items():
        text = text.replace("{" + key + "}", val)
    return text


def shown(argv: list[str], env: dict[str, str]) -> str:
    """The command line a user would type (``python`` for this interpreter)."""
    argv = ["python" if a == sys.executable else a for a in argv]
    return " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + shlex.join(argv)


def record(sc: Scenario, out_dir: Path, produced_by: str, torch: str | None = None) -> Result:
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.iterdir():
        if old.is_file():
            old.unlink()
    start = time.monotonic()
    with ExitStack() as stack:
        cluster: Cluster | None = None
        if sc.nodes:
            reason = netns_unavailable_reason()
            if reason:
                raise RuntimeError(f"{sc.name} needs network namespaces: {reason}")
            cluster = stack.enter_context(Cluster(sc.nodes, hostname_to_loopback=sc.hostname_to_loopback,
                                                  ifnames=dict(sc.ifnames)))
            values = {"port": "29500", "port2": "29501", "addr0": cluster.nodes[0].addr,
                      "addr1": cluster.nodes[1].addr if sc.nodes > 1 else ""}
            if sc.drop_port:
                cluster.drop_port(sc.drop_port[0], 29500, from_node=sc.drop_port[1])
            if sc.shadow_nic is not None:
                cluster.add_shadow_nic(sc.shadow_nic)
        else:
            port = free_port()
            port2 = free_port()
            values = {"port": str(port), "port2": str(port2 if port2 != port else port + 1), "addr0": "127.0.0.1"}
        values["python"] = sys.executable
        for name in sc.needs:
            values[f"{name}_path"] = os.pathsep.join([library_site(name), str(REPO)])
        codes = run_procs(sc, cluster, values, out_dir, stack)
        if cluster is not None and sc.shadow_nic is not None:
            save_routing(cluster, sc.shadow_nic, out_dir)    # as the user looked, after the failure
    seconds = time.monotonic() - start
    logs = recorded_outputs(out_dir)
    evidence, missing = find_evidence(sc.expect, logs)
    expected = {
        "cause": sc.cause, "symptom": sc.symptom, "also_acceptable": list(sc.also_acceptable),
        "description": sc.description, "produced_by": produced_by,
        "torch": torch or torch_version(), "evidence": evidence,
    }
    answer_file(out_dir).write_text(yaml.safe_dump(expected, sort_keys=False, width=100))
    return Result(sc.name, out_dir, codes, seconds, missing)


def recorded_outputs(out_dir: Path) -> dict[str, str]:
    """What a run left for the user to upload: every process's log and every saved command output (not the
    command.txt / env.txt that say how it was run)."""
    return {p.name: p.read_text(errors="replace") for p in sorted(out_dir.iterdir())
            if p.suffix in (".log", ".txt") and p.name not in ("command.txt", "env.txt")}


def save_routing(cluster: Cluster, node: int, out_dir: Path) -> None:
    """The node's `ip addr` and `ip route` as a user would paste them (node<i>-ip-addr.txt, node<i>-ip-route.txt)."""
    ns = cluster.nodes[node].ns
    for what in ("addr", "route"):
        res = subprocess.run(["ip", "-n", ns, what], capture_output=True, text=True, timeout=20, check=True)
        (out_dir / f"node{node}-ip-{what}.txt").write_text(res.stdout)


def answer_file(out_dir: Path) -> Path:
    """The expected answer lives beside the incident folder, so `doctor analyze <folder>` never reads it."""
    return out_dir.parent / f"{out_dir.name}.expected.yaml"


def run_procs(sc: Scenario, cluster: Cluster | None, values: dict[str, str], out_dir: Path,
              stack: ExitStack) -> dict[str, int]:
    commands: list[str] = []
    envs: list[str] = []
    running: list[tuple[Proc, subprocess.Popen[bytes]]] = []
    t0 = time.monotonic()
    for proc in sorted(sc.procs, key=lambda p: p.delay):
        time.sleep(max(0.0, t0 + proc.delay - time.monotonic()))
        env = {k: fill(v, values) for k, v in proc.env.items()}
        argv = [fill(a, values) for a in proc.argv]
        where = "this host" if cluster is None or proc.node is None else f"node{proc.node}"
        commands.append(f"# {proc.log}: on {where}" + (f", {proc.delay:g} s after the first" if proc.delay else ""))
        commands.append(shown(argv, env))
        envs.append(f"# {proc.log}")
        envs += [f"{k}={v}" for k, v in env.items()]
        if cluster is not None and proc.node is not None:
            argv = cluster.nodes[proc.node].wrap(argv)
        argv = ["timeout", "-k", "3", str(int(sc.deadline))] + argv
        log = stack.enter_context(open(out_dir / proc.log, "wb"))
        popen = subprocess.Popen(argv, env=base_env() | env, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, cwd=REPO)
        running.append((proc, popen))
    (out_dir / "command.txt").write_text("\n".join(commands) + "\n")
    (out_dir / "env.txt").write_text("\n".join(envs) + "\n")
    codes: dict[str, int] = {}
    for proc, popen in running:
        try:
            codes[proc.log] = popen.wait(timeout=max(1.0, t0 + sc.deadline + 10 - time.monotonic()))
        except subprocess.TimeoutExpired:
            popen.kill()
            codes[proc.log] = popen.wait()
    return codes


def find_evidence(expect: tuple[str, ...], logs: dict[str, str]) -> tuple[list[dict[str, str]], list[str]]:
    evidence: list[dict[str, str]] = []
    missing: list[str] = []
    for text in expect:
        pattern = re.compile(text)
        hit = next(((name, line) for name, body in sorted(logs.items())
                    for line in body.splitlines() if pattern.search(line)), None)
        if hit is None:
            missing.append(text)
        else:
            evidence.append({"source": hit[0], "line": hit[1].strip()[:400]})
    return evidence, missing
