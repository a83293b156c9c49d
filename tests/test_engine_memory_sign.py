"""vLLM's start-up memory check ("Free memory on device ... on startup is less than desired GPU memory utilization")
does not name its cause; it narrows the field to three, each with the check that tells it apart (the narrowing sign
engine_memory_short_at_start, rules/differentials.yaml). Real text: pytorch#175666's vLLM CI run (held-out batch EK)."""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.judgement.context import narrowing_sign
from doctor.judgement.unknowns import sign_causes

REPO = Path(__file__).resolve().parents[1]
CASE = REPO / "fixtures" / "cases" / "ksb-pytorch-175666-torch211-cu130-vllm-l4-free-mem" / "input"
CAUSES = {"stale_process_gpu_memory", "known_software_bug", "rank_config_error"}


def test_the_sign_lists_its_three_causes() -> None:
    assert set(sign_causes()["engine_memory_short_at_start"]) == CAUSES


def test_the_ci_log_shows_the_sign_and_gets_its_differential_not_silence() -> None:
    report = diagnose_files([str(CASE)])
    assert narrowing_sign(report.facts) == "engine_memory_short_at_start"
    assert {d.cause for d in report.diagnoses} == CAUSES
    assert all(not d.rules and d.confidence < 0.5 for d in report.diagnoses), "a guess is never sure"
    assert report.differential is not None and report.differential.symptom == "engine_memory_short_at_start"
