"""The Markdown report: order, evidence quoted safely, tables escaped."""
from __future__ import annotations

from doctor.probing.offline import InputRecord
from doctor.rank import Diagnosis, Evidence
from doctor.report.markdown import cell, code, render
from doctor.report.model import Report


def test_code_spans_survive_backticks() -> None:
    assert code("plain") == "`plain`"
    assert code("a `b` c") == "``a `b` c``"
    assert code("`x`") == "`` `x` ``"


def test_cells_escape_pipes() -> None:
    assert cell("a|b\nc") == "a\\|b c"


def test_report_lists_causes_best_first_with_evidence_fix_and_inputs() -> None:
    first = Diagnosis("shm_too_small", "NCCL could not create a segment", 0.9, ["SHM001"],
                      [Evidence("r1.log", 17, "NCCL WARN Call to posix_fallocate failed", "ENOSPC")],
                      "Give the container a larger /dev/shm", ["docker: `--shm-size=16g`"], ["`df -h /dev/shm`"])
    second = Diagnosis("port_blocked", "timed out *connecting* <b>", 0.24, ["NET001"], [], "Open the port", [],
                       lowered_by=["NET021"])
    inputs = [InputRecord("r1.log", 10, ["nccl_log"]), InputRecord("core|x", 5, [], "skipped", "binary content")]
    text = render(Report([first, second], facts=[], inputs=inputs, symptom="nccl_error"))
    assert text.index("## 1. shm_too_small") < text.index("## 2. port_blocked")
    assert "- `r1.log:17` `NCCL WARN Call to posix_fallocate failed` (ENOSPC)" in text
    assert "1. docker: `--shm-size=16g`" in text and "- `df -h /dev/shm`" in text
    assert "timed out \\*connecting\\* \\<b\\>" in text and "(lowered by NET021)" in text
    assert "| core\\|x | 5 |  | skipped: binary content |" in text
    assert text.startswith("# doctor report\n\n1 input(s) read, 0 facts, symptom: nccl_error.")


def test_empty_report_says_nothing_was_found() -> None:
    assert "No known cause found" in render(Report([], facts=[]))
