"""collectives: PyTorch's stuck watchdog is a hang (issue 12, held-out batch CS).

Real text: modelscope/ms-swift#7992 (fixtures/cases/hang-ms-swift-7992-moe-exit-without-destroy-pg), where every rank
ended training without destroy_process_group and the expert-parallel group's watchdog hung in teardown; the input read
as healthy. Fuser#3055 (fixtures/cases/hang-fuser-3055-teardown-nccl-2234-destroy-order) prints the same line and then
the termination.
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.judgement.context import read_symptom
from doctor.probing.contract import parse_lines
from probes.collectives import Collectives

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
STUCK = ("18:11:06.680 [rank4]:[E205 18:11:06.375750231 ProcessGroupNCCL.cpp:1870] [PG ID 12 PG GUID "
         "99(EXPERT_MODEL_PARALLEL_GROUP) Rank 4] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making "
         "progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEvent"
         "Destroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api "
         "(for example, CudaEventDestroy), or other deadlock-prone behaviors.\n")


def test_a_stuck_watchdog_is_a_stall_and_a_hang() -> None:
    facts = parse_lines(Collectives, STUCK)
    assert [(f.KIND, f.get("framework"), f.get("waited_s")) for f in facts] == [("collective.stalled", "pytorch_watchdog", 480.0)]
    assert read_symptom(facts) == "hang"


def test_the_teardown_hangs_are_no_longer_healthy_and_no_horovod_stall() -> None:
    for case in ("hang-ms-swift-7992-moe-exit-without-destroy-pg", "hang-fuser-3055-teardown-nccl-2234-destroy-order"):
        report = diagnose_files([str(CASES / case / "input")])
        assert not report.healthy, case
        assert not any("HVD001" in d.rules for d in report.diagnoses), case
        assert {"collective_desync", "known_software_bug"} <= {d.cause for d in report.diagnoses[:3]}, case
