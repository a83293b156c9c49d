"""Run the doctor CLI on a hostile upload with a time limit and an address-space cap, so that a hang or a memory
blow-up fails the test quickly instead of taking the machine (importable as `hostile_run` from tests/)."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEMORY_CAP = 3 * 2**30


def run_capped(*args: str, tmp: Path, timeout: float = 60, memory: int = MEMORY_CAP,
               stdin: bytes | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """`python -m doctor ARGS` under RLIMIT_AS=memory, killed after timeout (raises TimeoutExpired), TMPDIR=tmp.
    stdout and stderr are bytes, so a test can look for raw control characters."""
    tmp.mkdir(exist_ok=True)
    full_env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp), **(env or {}))

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, timeout=timeout, cwd=REPO,
                          env=full_env, preexec_fn=cap, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def refused_but_kept(done: subprocess.CompletedProcess[bytes], tmp: Path) -> str:
    """Exit 0/1/2, no traceback, nothing left in tmp; the stdout text."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode in (0, 1, 2), (done.returncode, err[-2000:])
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert list(tmp.iterdir()) == [], "doctor left files in its temporary folder"
    return done.stdout.decode("utf-8", "replace")
