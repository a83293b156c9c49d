"""Run one probe's command on this node: timeout, own process group, output captured to files.

A tool that is not on PATH gives Skipped with the reason. A tool that hangs (nvidia-smi does, on a GPU
that fell off the bus) is killed with its whole process group at its timeout and gives Failed. A
process stuck in the kernel ignores SIGKILL until the driver lets go: it is abandoned after a short
grace, never waited for, so doctor itself cannot hang. Output goes to temporary files, not pipes, so a
grandchild that keeps a pipe open cannot block the read either.

Python readers (NVML, sockets, environment) run the same way, as `python -m doctor.probing.read
module:function`, so they are killable too; a reader says "not here" with exit code SKIP_EXIT.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from doctor.facts.status import ProbeStatus
from doctor.probing.contract import Failed, Ok, Outcome, Skipped

SKIP_EXIT = 3                  # a reader's exit code for "nothing to read on this node"
KILL_GRACE_S = 2.0             # how long to wait for a killed process group before abandoning it
MAX_OUTPUT = 16 * 2**20        # bytes kept of stdout and of stderr
_READ = "doctor.probing.read"
_RUNNING: set[subprocess.Popen[bytes]] = set()     # children in their own sessions: Ctrl-C does not reach them
_LOCK = threading.Lock()


class NotHere(Exception):
    """Raised by a Python reader: nothing of this kind on this node (no NVML library, MASTER_ADDR unset)."""


@dataclass(frozen=True)
class LiveProbe:
    """How to gather one artifact on a node, and which parser reads it (live and offline alike)."""

    name: str                                   # also the file stem in a bundle
    argv: tuple[str, ...]                       # a tool's command line, or reader("module:function")
    parser: str = ""                            # DocumentProbe name forced on the output; '' = sniffing + line probes
    timeout_s: float = 10.0
    gpu: bool = False                           # talks to the NVIDIA driver (a hang there is a GPU fault sign)
    fallbacks: tuple[tuple[str, ...], ...] = () # tried in order when a tool is missing or fails
    skip_when: tuple[str, ...] = ()             # output meaning "nothing of this kind here"
    about: str = ""                             # how to name it to people, default: the command line

    @property
    def label(self) -> str:
        return self.about or command_text(self.argv)

    @property
    def file(self) -> str:
        return f"{self.name}.txt"


@dataclass
class LiveResult:
    probe: LiveProbe
    argv: tuple[str, ...]
    outcome: Outcome
    stdout: str = ""
    stderr: str = ""
    exit: int | None = None
    duration_s: float = 0.0

    @property
    def status(self) -> str:
        return {Ok: "ok", Skipped: "skipped", Failed: "failed"}[type(self.outcome)]

    @property
    def reason(self) -> str:
        return getattr(self.outcome, "reason", "") or getattr(self.outcome, "error", "")

    def status_fact(self, node: str) -> ProbeStatus:
        return ProbeStatus(node=node, probe=self.probe.name, status=self.status, reason=self.reason)


def reader(target: str, *args: str) -> tuple[str, ...]:
    """argv that runs a Python reader (module:function under probes/) in its own killable process."""
    return (sys.executable, "-m", _READ, target, *args)


def command_text(argv: tuple[str, ...]) -> str:
    if len(argv) >= 4 and argv[1:3] == ("-m", _READ):
        return "doctor read " + " ".join(argv[3:])
    return " ".join(argv)


def run_probe(probe: LiveProbe, timeout_cap: float | None = None) -> LiveResult:
    """Run the probe's command (then its fallbacks) and classify the outcome. Never raises, never hangs."""
    timeout = min(probe.timeout_s, timeout_cap) if timeout_cap else probe.timeout_s
    missing: list[str] = []
    result: LiveResult | None = None
    for argv in (probe.argv, *probe.fallbacks):
        if not _found(argv[0]):
            missing.append(argv[0])
            continue
        result = run_argv(probe, argv, timeout)
        if not isinstance(result.outcome, Failed) or "timed out" in result.reason:
            return result
    if result is not None:
        return result
    tools = " or ".join(dict.fromkeys(missing))
    return LiveResult(probe, probe.argv, Skipped(f"{tools} not found on PATH"))


def run_argv(probe: LiveProbe, argv: tuple[str, ...], timeout: float) -> LiveResult:
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True,
                                    env=_child_env(argv))
        except OSError as exc:
            return LiveResult(probe, argv, Failed(f"cannot run {argv[0]}: {exc.strerror or exc}"))
        with _LOCK:
            _RUNNING.add(proc)
        try:
            code, stuck = _wait(proc, timeout)
        finally:
            with _LOCK:
                _RUNNING.discard(proc)
        elapsed = time.monotonic() - started
        stdout, stderr = _read(out), _read(err)
    return LiveResult(probe, argv, _classify(probe, argv, code, stuck, timeout, stdout, stderr), stdout, stderr, code,
                      round(elapsed, 3))


def kill_running() -> None:
    """Kill every probe still running (doctor was interrupted): their sessions do not get the terminal's SIGINT."""
    with _LOCK:
        running = list(_RUNNING)
    for proc in running:
        _kill_group(proc.pid)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int | None, bool | None]:
    """(exit code, None) when it ended; (None, stuck) after a timeout kill. stuck: it outlived SIGKILL.
    Whatever the tool left running in its session is killed either way."""
    try:
        code = proc.wait(timeout=timeout)
        _kill_group(proc.pid)
        return code, None
    except subprocess.TimeoutExpired:
        pass
    _kill_group(proc.pid)
    try:
        proc.wait(timeout=KILL_GRACE_S)
        return None, False
    except subprocess.TimeoutExpired:
        return None, True


def _classify(probe: LiveProbe, argv: tuple[str, ...], code: int | None, stuck: bool | None, timeout: float,
              stdout: str, stderr: str) -> Outcome:
    if code is None:
        tail = " and did not exit after SIGKILL (stuck in the kernel)" if stuck else ", killed with its process group"
        return Failed(f"timed out after {timeout:g}s{tail}")
    text = stdout + "\n" + stderr
    for marker in probe.skip_when:
        if marker in text:
            return Skipped(_line_with(text, marker))
    if code == SKIP_EXIT and argv[1:3] == ("-m", _READ):
        return Skipped(_last_line(stderr) or "nothing to read on this node")
    if code != 0:
        return Failed(f"exit {code}: {_last_line(stderr) or _last_line(stdout) or 'no output'}")
    return Ok(())


def _found(tool: str) -> bool:
    return bool(shutil.which(tool)) if os.sep not in tool else os.access(tool, os.X_OK)


def _child_env(argv: tuple[str, ...]) -> dict[str, str]:
    env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8", PYTHONIOENCODING="utf-8")
    if argv[1:3] == ("-m", _READ):
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def _read(fh: IO[bytes]) -> str:
    fh.seek(0)
    return fh.read(MAX_OUTPUT).decode("utf-8", "replace")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def _line_with(text: str, marker: str) -> str:
    return next((line.strip()[:200] for line in text.splitlines() if marker in line), marker)
