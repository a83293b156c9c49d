"""An input that shows no failure stays healthy (exit 0, no alarm), and says which causes are likeliest if the job
failed all the same: fitted guesses over every failure cause, small by nature, each with the check that tells it
apart (doctor/judgement/model.py QUIET, rules/README.md "How doctor ranks")."""
from __future__ import annotations

import json
from pathlib import Path

from doctor.diagnose import diagnose_files, rule_base
from doctor.judgement.model import QUIET, CaseView, Model, base_model, candidates, guess_symptom, shown

REPO = Path(__file__).resolve().parents[1]
# a real case whose only input is the topology the reporter posted (GPUs behind the CPU, no NVLink): P2P was broken
QUIET_CASE = REPO / "fixtures" / "cases" / "p2p-nccl-2079" / "input"
HEALTHY_RUN = REPO / "fixtures" / "cases" / "healthy-lab-doctor-collect" / "input"
FAILING = REPO / "fixtures" / "format-examples" / "accelerate-machine-rank-duplicate"


def test_a_quiet_input_is_healthy_and_says_what_to_check_if_it_failed(doctor_cli) -> None:
    text = doctor_cli("analyze", str(QUIET_CASE))
    assert text.returncode == 0 and "No known cause found" in text.stdout
    assert "If the job failed anyway, the likeliest causes" in text.stdout
    data = json.loads(doctor_cli("analyze", "--json", str(QUIET_CASE)).stdout)
    assert data["healthy"] is True and data["diagnoses"], "a quiet input still names the usual causes"
    assert all(d["if_failed"] and not d["rules"] and d["confidence"] < 0.5 for d in data["diagnoses"])
    assert abs(sum(d["confidence"] for d in data["diagnoses"]) + data["unexplained"] - 1.0) < 0.01
    assert data["unexplained"] >= 0.7, "most inputs like this are healthy: the guesses stay small"
    assert len(data["diagnoses"]) <= 3


def test_the_guesses_follow_what_the_input_shows() -> None:
    """A PCIe-only topology makes P2P likelier than a healthy run's bundle with no topology does (context, fitted)."""
    def p2p(path: Path) -> float:
        report = diagnose_files([str(path)])
        assert not report.diagnoses and report.healthy
        return next((d.confidence for d in report.if_failed if d.cause == "p2p_broken"), 0.0)
    assert p2p(QUIET_CASE) > p2p(HEALTHY_RUN)


def test_a_failing_input_never_gets_guesses_if_it_failed() -> None:
    report = diagnose_files([str(FAILING)])
    assert report.diagnoses and not report.if_failed and not report.healthy


def test_only_a_quiet_input_is_guessed_over_every_cause() -> None:
    rules, causes = rule_base()
    model: Model = base_model(rules, causes)
    quiet = CaseView({}, None, ("quiet",), failing=False)
    assert guess_symptom(quiet) == QUIET
    assert set(candidates(quiet, model.cause_symptoms)) == {c for c, s in model.cause_symptoms.items() if s}
    hang = CaseView({}, "hang", (), failing=True)
    assert set(candidates(hang, model.cause_symptoms)) < set(candidates(quiet, model.cause_symptoms))
    assert len(shown(model.probabilities(quiet), quiet)) <= 3


def test_the_tui_and_markdown_say_the_same_guesses() -> None:
    from doctor.report.markdown import render as markdown
    from doctor.tui.screens.diagnosis import nothing_found
    report = diagnose_files([str(QUIET_CASE)])
    first = report.if_failed[0]
    assert f"{first.cause} {first.confidence:.0%}" in nothing_found(report)
    assert f"{first.cause} ({first.confidence:.0%})" in markdown(report).replace("\\_", "_")


# A real case (julia MPI.jl#899): four copies each print "rank 0 out of 1"; RANK016 reads a launcher/library mismatch,
# the thread's answer was Ubuntu 24.04's broken MPICH package (known_software_bug). Nothing in the input is a failure.
READ_NO_FAILURE = REPO / "fixtures" / "cases" / "known-bug-mpi-jl-899-ubuntu-24-04-mpich-package-rank-0-out-of-1" / "input"


def test_a_cause_read_from_an_input_that_shows_no_failure_is_followed_by_the_alternatives() -> None:
    """Before, the report held RANK016's cause and nothing else, so when the rule was wrong the right cause was not
    ranked at all; now the guesses "if it failed" follow it, small, under it, and titled as alternatives."""
    report = diagnose_files([str(READ_NO_FAILURE)])
    first, *rest = report.diagnoses
    assert first.cause == "rank_config_error" and first.rules == ["RANK016"]
    assert rest and len(rest) <= 3 and all(not d.rules and d.confidence < first.confidence for d in rest)
    assert "known_software_bug" in [d.cause for d in rest[:2]]
    assert all(d.title.startswith("also possible: ") for d in rest), [d.title for d in rest]
