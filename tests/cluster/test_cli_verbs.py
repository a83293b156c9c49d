"""The new verbs keep the CLI contract: listed in --help without importing torch, one-line usage errors."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_help_lists_the_verbs_without_torch() -> None:
    code = ("import sys, contextlib, io; from doctor.cli import build_parser; p = build_parser(); "
            "out = io.StringIO(); p.print_help(out); print('cluster' in out.getvalue() and 'check' in out.getvalue(), "
            "'torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.stdout.split() == ["True", "False"], proc.stderr


def test_cluster_outside_a_job_is_a_usage_error() -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "doctor", "cluster"], capture_output=True, text=True, timeout=60,
                          cwd=REPO, env=env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("doctor: doctor cluster needs a job: run it under torchrun") and proc.stderr.count("\n") == 1


def test_node_check_does_not_import_torch() -> None:
    code = ("import sys; from doctor.cli import main; rc = main(['check', '--node', '--json']); "
            "sys.stderr.write(str('torch' in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.stderr.strip().endswith("False"), proc.stderr
