"""A setting is context, not a sign (rules/README.md, "Signs, not context"): a cause read from settings alone (an
NCCL_* override, a launch flag) is held under an alarm where the input shows no failure, and counts in full once the
user says what went wrong. Real input: ALCF's two-node Polaris ResNet-50 run over aws-ofi-nccl on Slingshot
(alcf-nccl-tests, a healthy committed result), whose environment dump and log carry its deliberate NCCL overrides.
(The first input of this test, MLPerf v5.0's Dell H200 BERT run, on which ENV002 once said 0.976, now records its
own success under the overrides and ENV002 is quiet there: tests/test_survived_lines.py.)"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.judgement.metrics import ALARM
from doctor.judgement.model import GUESS_CEILING

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"
TUNED_HEALTHY_RUN = CASES / "healthy-alcf-nccl-tests-polaris-resnet50-aws-ofi-cxi-2node" / "input"


def confidence(report, cause: str) -> float:  # type: ignore[no-untyped-def]
    return next(d.confidence for d in report.diagnoses if d.cause == cause)


def test_overrides_in_a_run_that_shows_no_failure_raise_no_alarm() -> None:
    report = diagnose_files([str(TUNED_HEALTHY_RUN)])
    assert all(d.confidence < ALARM for d in report.diagnoses)
    assert confidence(report, "nccl_env_misuse") <= GUESS_CEILING   # still listed: the rule read the overrides


def test_the_same_overrides_count_once_the_user_says_what_went_wrong() -> None:
    """Stated, the symptom lifts the hold: the overrides are then read as the first suspect, at what the fitted weights
    give them (for a hang, beside the hang's usual causes; for a slow multi-node job, alone and above an alarm)."""
    hang = diagnose_files([str(TUNED_HEALTHY_RUN)], symptom="hang")
    assert hang.diagnoses[0].cause == "nccl_env_misuse"
    slow = diagnose_files([str(TUNED_HEALTHY_RUN)], symptom="slow_multinode")
    assert slow.diagnoses[0].cause == "nccl_env_misuse" and confidence(slow, "nccl_env_misuse") > GUESS_CEILING
