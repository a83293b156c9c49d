"""`doctor tui` at the command line: registered, textual loaded lazily, one-line errors (no traceback)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_help_lists_tui_without_importing_textual(doctor_cli) -> None:
    code = ("import sys; from doctor.cli import build_parser; build_parser().format_help(); "
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO)}, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
    assert "tui" in doctor_cli("--help").stdout


def test_missing_path_is_one_line_exit_2(doctor_cli) -> None:
    result = doctor_cli("tui", "no/such/incident")
    assert result.returncode == 2
    assert result.stderr.strip() == "doctor: no/such/incident: no such file or directory"


def test_without_a_terminal_it_points_to_analyze(doctor_cli) -> None:
    result = doctor_cli("tui", "fixtures/format-examples/tui-demo")
    assert result.returncode == 2 and "doctor analyze" in result.stderr and "Traceback" not in result.stderr
