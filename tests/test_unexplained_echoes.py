"""A line that repeats a cited line's message is not unexplained (issue 12).

PyTorch quotes NCCL's last WARN under "Last error:" in its exception text. Once error_lines read "Error while
creating shared memory segment ..." at the start of a line (an error opening "Error <doing>", Lightning#15545), the
quote in fixtures/format-examples/tui-demo (rank1-nccl.log:39) would have been listed as unexplained although the /dev/shm
rule cites the WARN it repeats (line 20).
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files

REPO = Path(__file__).resolve().parents[1]


def test_the_last_error_quote_of_a_cited_warn_is_explained() -> None:
    report = diagnose_files([str(REPO / "fixtures" / "format-examples" / "tui-demo")])
    assert report.diagnoses[0].cause == "shm_too_small"
    listed = [(Path(e.source).name, e.line) for e in report.unexplained_lines]
    assert ("rank1-nccl.log", 39) not in listed
    assert ("rank1-nccl.log", 37) in listed      # PyTorch's own exception line is not a quote of the WARN


def test_a_different_message_is_still_listed() -> None:
    hydra = REPO / "fixtures" / "cases" / "bug-lightning-15545-hydra-ddp-relaunch-children-fail" / "input"
    report = diagnose_files([str(hydra)])
    assert [e.line for e in report.unexplained_lines] == [12]
