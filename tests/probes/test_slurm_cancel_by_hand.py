"""Slurm's cancel line: with no reason it is someone's scancel, not a failure; with "DUE TO ..." it names one.

Real text: bigscience's 4-node Megatron benchmark stopped by hand after steady iterations (held-out batch LW, a
healthy case) and CSCS's Open MPI segfault whose job Slurm cancelled "DUE TO TASK FAILURE".
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
from probes.error_lines import classify

REPO = Path(__file__).resolve().parents[2]
BY_HAND = REPO / "fixtures/cases/healthy-bigscience-meg-gpt2-n4-tp4-pp4-scancelled-benchmark/input"
TASK_FAILURE = REPO / "fixtures/cases/bug-cscsdocs-openmpi-iallreduce-gpu-buffers-segfault/input"


def error_lines(path: Path) -> list[str]:
    facts = gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return [f.origin.text for f in facts if f.KIND == "log.error_line"]


def test_cancel_by_hand_leaves_no_failure_line() -> None:
    assert not [t for t in error_lines(BY_HAND) if "CANCELLED" in t]


def test_cancel_with_a_reason_stays_a_failure_line() -> None:
    assert [t for t in error_lines(TASK_FAILURE) if "CANCELLED AT" in t and "DUE TO TASK FAILURE" in t]


def test_time_limit_is_a_reason() -> None:
    line = "slurmstepd: error: *** JOB 1809579 ON r8i3n1 CANCELLED AT 2021-05-23T08:45:57 DUE TO TIME LIMIT ***"
    assert classify(line) == "error"
