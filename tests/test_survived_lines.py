"""A run that records its own success (MLPerf's run_stop "success"): the failure-looking lines in its file are lines
it went on from, not the failure (doctor/aggregate_outcome.py, probes/job_outcome.py).

Real text: MLPerf Training results whose runs end in run_stop success and then print teardown noise (held-out batch
LE: NCCL proxy WARNs, heartbeat-monitor tracebacks; KX: proxy WARNs), or printed init-time warnings the run went on
from (the base's v3.0 Quanta "failed" IB device list, v1.1 Gigabyte's hcoll init). Before, each was read as an NCCL
error or a crash (a guess at 0.49) and reported not healthy.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from doctor.aggregate_outcome import FAILURE_KINDS
from doctor.diagnose import diagnose_files
from doctor.judgement.context import MEASUREMENT_KINDS, SYMPTOM_SIGNS
from doctor.report.nothing_found import advice

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"
TEARDOWN = CASES / "healthy-mlperf-v50-dell-2xxe9680l-rgat-proxy-accept-failed-success" / "input"
FAILURE = CASES / "shm-sglang-docs-5" / "input"


@pytest.mark.parametrize("case", [
    "healthy-mlperf-v50-dell-2xxe9680l-rgat-proxy-accept-failed-success",     # proxy WARNs after run_stop (LE)
    "healthy-mlperf-v50-supermicro-422ga-bert-heartbeat-tcpstore-recv",       # heartbeat tracebacks (LE)
    "healthy-mlperf-v50-dell-xe7740-h200nvl-retinanet-proxy-close-warn",      # KX
    "healthy-mlperf-v30-quanta-d74h-resnet-failed-ib-devices-list",           # init-time lines, not written from
    "healthy-mlperf-v11-gigabyte-g492id0-minigo-hcoll-init-failed",           # the same
    # a heartbeat monitor's "recvValue failed ... Connection reset by peer" after run_stop: COLL006 read a lost peer
    # at 0.88 until collective.peer_lost was set aside too (held-out batch OS, written from it)
    "healthy-mlperf50-supermicro-b200-bert-heartbeat-reset-by-peer-at-exit",
])
def test_a_run_that_records_its_success_is_healthy(case: str) -> None:
    report = diagnose_files([str(CASES / case / "input")])
    assert report.healthy and not report.diagnoses
    assert any(f.KIND == "log.survived" for f in report.facts)


def test_the_report_says_what_it_set_aside() -> None:
    text = " ".join(advice(diagnose_files([str(TEARDOWN)])))
    assert "result_0.txt:3577 records its own success; 37 failure-looking line(s)" in text


def test_another_file_of_the_upload_is_read_as_it_is(tmp_path: Path) -> None:
    shutil.copy(TEARDOWN / "result_0.txt", tmp_path / "run1.txt")
    for f in FAILURE.iterdir():
        shutil.copy(f, tmp_path / f"run2-{f.name}")
    report = diagnose_files([str(tmp_path)])
    assert report.diagnoses and report.diagnoses[0].cause == "shm_too_small"


def test_every_failure_sign_of_the_judgement_is_set_aside() -> None:
    # a figure below its expectation (bench.verdict) stays: a run that succeeded can still be slow
    signs = {kind for kind, _, _ in SYMPTOM_SIGNS if kind not in MEASUREMENT_KINDS | {"bench.verdict"}}
    signs |= {"log.error_line"}
    assert signs <= FAILURE_KINDS
