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


# DCGM 3.3/4.x: the test's row has the overall result, each GPU a row of its own (fixtures/logs, DCGM#253)
LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
PCIE_CHILD_EXITED = LOGS / "dcgmi-diag-4.2.3-pcie-child-exited-l40s.txt"


def test_a_4x_test_that_failed_while_every_gpu_passed_names_no_gpu() -> None:
    """DCGM#253: pcie Fail from its child processes' internal errors, every GPU row Pass (4.2.3 and 4.4.1)."""
    assert read(PCIE_CHILD_EXITED.read_text()) == []
    assert read((LOGS / "dcgmi-diag-4.4.1-pcie-child-output-b200.txt").read_text()) == []


def test_a_4x_gpu_row_that_fails_names_its_test_and_gpu() -> None:
    """The same real table with memory's GPU2 row failed and a detail row in the layout dcgmi 4.x prints for a GPU
    (dcgmi/Diag.cpp: "GPU2: Fail", then "Warning: GPU2"): a format test of this probe, not a case."""
    lines = PCIE_CHILD_EXITED.read_text().splitlines()
    at = lines.index("| memory                    | Pass                                           |")
    lines[at] = lines[at].replace("Pass", "Fail")
    lines[at + 3] = lines[at + 3].replace("GPU2: Pass", "GPU2: Fail")
    lines.insert(at + 4, "| Warning: GPU2             | GPU 2 Error using CUDA API cuCtxCreate          |")
    facts = read("\n".join(lines) + "\n")
    assert [(f.test, f.gpus) for f in facts] == [("memory", "2")]
    assert facts[0].origin.line == at + 4


def test_a_4x_software_row_failing_a_gpu_judges_the_setup() -> None:
    """4.x's deployment checks are one test, `software`: its GPU rows fail for persistence mode off (GB10 capture)."""
    lines = PCIE_CHILD_EXITED.read_text().splitlines()
    at = lines.index("| software                  | Pass                                           |")
    lines[at + 1] = lines[at + 1].replace("GPU0: Pass", "GPU0: Fail")
    assert read("\n".join(lines) + "\n") == []


def test_inforom_is_a_test_not_a_detail_row() -> None:
    text = "| Inforom                   | Fail - GPU: 1                                  |\n"
    assert [(f.test, f.gpus) for f in read(text)] == [("Inforom", "1")]
