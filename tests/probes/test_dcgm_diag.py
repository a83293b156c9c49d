"""dcgmi diag results in the wording real output uses (issue 12, GPU hardware area).

The texts are fixtures/cases/hw-mlengineering-dcgmi-r2 and the ML Engineering notes' -r 3 example
(fixtures/probes/dcgm_diag): a failure on a continuation row belongs to the test named above it.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.dcgm_diag import DcgmDiag

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "probes" / "dcgm_diag"


def read(text: str) -> list:
    return parse_lines(DcgmDiag, text, source="dcgmi.txt", node="n1")


def test_fail_on_continuation_row_names_the_test_above() -> None:
    facts = read((FIXTURES / "r2-gpu-memory-fail.txt").read_text())
    assert [(f.test, f.gpus, f.result) for f in facts] == [("GPU Memory", "0", "fail")]
    assert facts[0].origin.line == 2


def test_error_row_of_the_deployment_checks_names_the_gpu() -> None:
    facts = read((FIXTURES / "r3-deployment-error-row-remap.txt").read_text())
    assert [(f.test, f.gpus) for f in facts] == [("Deployment", "3")]


def test_passing_rows_and_warning_details_give_nothing() -> None:
    text = (FIXTURES / "r2-gpu-memory-fail.txt").read_text().splitlines()
    kept = [text[0]] + text[2:]          # the same table without its Fail row
    assert read("\n".join(kept) + "\n") == []
