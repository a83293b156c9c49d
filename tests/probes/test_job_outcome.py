"""MLPerf's run_stop record read as job.outcome (probes/job_outcome.py), on the real line and on broken ones."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.probing.contract import parse_lines
from probes.job_outcome import JobOutcomes

RESULT = (Path(__file__).resolve().parents[2] / "fixtures" / "cases"
          / "healthy-mlperf-v50-dell-xe7740-h200nvl-retinanet-proxy-close-warn" / "input" / "result_0.txt")


def _outcomes(text: str) -> list[tuple[str, int]]:
    return [(f.status, f.origin.line) for f in parse_lines(JobOutcomes, text, source="x", node="")]


def test_the_run_stop_record_of_a_real_result() -> None:
    assert _outcomes(RESULT.read_text(encoding="utf-8")) == [("success", 1249)]


@pytest.mark.parametrize("line", [
    ':::MLLOG {"key": "run_stop", "metadata": {"status": "success"\n',            # cut JSON
    ':::MLLOG {"key": "run_stop", "metadata": "success"}\n',                       # metadata not a mapping
    'print("run_stop") # a script, no record\n',
    ':::MLLOG ["run_stop"]\n',
    ':::MLLOG {"key": "run_stop", "metadata": {"status": "' + "x" * 5000 + '"}}\n',   # longer than a record
])
def test_anything_else_gives_nothing(line: str) -> None:
    assert _outcomes(line) == []
