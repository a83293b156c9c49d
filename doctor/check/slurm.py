"""Slurm mode: fit HealthCheckProgram's 60 s limit and drain a failing node.

slurmd kills a HealthCheckProgram that runs past 60 s, so `doctor check --slurm` keeps a global deadline
(DEADLINE_S), runs the node probes in parallel under it, and exits 3 (no drain: nothing proven) when it
overruns. A failing check drains this node with a reason prefixed `doctor:`; with --dry-run, or where
scontrol is not installed, the command is printed and not run.
"""
from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import threading

from doctor.check.evaluate import FAIL, Evaluation

DEADLINE_S = 50.0          # leaves 10 s of HealthCheckProgram's 60 for start-up and the drain itself
REASON_MAX = 80


def short_host() -> str:
    """`hostname -s`: Slurm's NodeName is the short host name."""
    return socket.gethostname().split(".")[0]


def reason(ev: Evaluation) -> str:
    failed = [r.check.id for r in ev.results if r.status == FAIL]
    text = "doctor: " + ", ".join(failed)
    text = text if len(text) <= REASON_MAX else text[:REASON_MAX - 3] + "..."
    return text.replace('"', "'")


def drain_argv(ev: Evaluation) -> list[str]:
    return ["scontrol", "update", f"NodeName={short_host()}", "State=DRAIN", f"Reason={reason(ev)}"]


def drain(ev: Evaluation, dry_run: bool) -> tuple[str, int | None]:
    """(what was printed, scontrol's exit code or None when not run)."""
    argv = drain_argv(ev)
    shown = shlex.join(argv)
    if dry_run:
        return f"would run: {shown}", None
    if shutil.which("scontrol") is None:
        return f"scontrol not found; not run: {shown}", None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=8)
    except subprocess.TimeoutExpired:
        return f"ran: {shown} (timed out after 8 s)", 124
    tail = (done.stderr or done.stdout).strip().splitlines()
    return f"ran: {shown} (exit {done.returncode}{': ' + tail[-1] if tail else ''})", done.returncode


def deadline(seconds: float, message: str) -> threading.Timer:
    """Exit 3 with one line if the whole check overruns: HealthCheckProgram must never be killed half-way."""
    def expire() -> None:
        os.write(2, (message + "\n").encode())
        os._exit(3)
    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer
