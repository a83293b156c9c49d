"""When nothing in the input shows a failure, the report says so, how to ask for a symptom's usual causes, and which
of the usual artifacts were not uploaded; an artifact that was uploaded is not asked for again."""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.report.markdown import render as markdown
from doctor.report.nothing_found import advice, missing_artifacts

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"
NCCL_INIT_ONLY = CASES / "p2p-vllm-9920" / "input"        # vLLM's NCCL INFO lines, then a stall: nothing fails
TOPOLOGY_ONLY = CASES / "gdr_disabled-nccl-1343" / "input"  # nvidia-smi topo -m alone


def test_an_nccl_log_is_not_asked_for_again() -> None:
    report = diagnose_files([str(NCCL_INIT_ONLY)])
    assert report.healthy
    missing = missing_artifacts(report)
    assert not any("NCCL_DEBUG" in m for m in missing)
    assert "nvidia-smi topo -m" in missing


def test_a_topology_is_not_asked_for_again_and_the_symptom_flag_is_offered() -> None:
    report = diagnose_files([str(TOPOLOGY_ONLY)])
    lines = advice(report)
    assert lines[0].startswith("Nothing in these inputs shows a failure")
    assert any("--symptom" in line for line in lines)
    assert "nvidia-smi topo -m" not in missing_artifacts(report)
    assert any("NCCL_DEBUG=INFO" in m for m in missing_artifacts(report))


def test_a_stated_symptom_is_not_asked_for() -> None:
    report = diagnose_files([str(TOPOLOGY_ONLY)], symptom="slow_multinode")
    assert not any("--symptom" in line for line in advice(report))


def test_the_markdown_report_carries_the_advice() -> None:
    text = markdown(diagnose_files([str(NCCL_INIT_ONLY)]))
    assert "Nothing in these inputs shows a failure" in text and "Not uploaded yet" in text


def test_the_tui_heading_names_what_was_not_uploaded() -> None:
    from doctor.tui.screens.diagnosis import nothing_found
    heading = nothing_found(diagnose_files([str(NCCL_INIT_ONLY)]))
    assert "Nothing in them shows a failure" in heading and "nvidia-smi topo -m" in heading
    assert "NCCL_DEBUG" not in heading and "press s" in heading
