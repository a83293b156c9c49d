"""Run `python -m doctor` as a user would (importable as `doctor_cli` from any test folder)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def run_doctor(*args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m doctor ARGS` as a user would, from the repository root."""
    full_env = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env=full_env)
