"""A log whose NCCL output stops inside communicator init, nothing after it (doctor/aggregate_nccl.py): read as a
hang there, and the report says so beside the guessed causes. All inputs are public threads' text in fixtures/cases."""
from __future__ import annotations

import json
from pathlib import Path

from doctor.aggregate import aggregate
from doctor.judgement.context import features, read_symptom, shows_failure
from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"


def facts_of(case: str) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    return aggregate(gather_files([str(CASES / case / "input")], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)


def unfinished(facts: list) -> list:
    return [f for f in facts if f.KIND == "nccl.init_unfinished"]


def test_output_that_stops_after_channel_setup_is_a_hang_there() -> None:
    """Lightning#19425: 14 NCCL lines of a 2-GPU job, the last 'via P2P/IPC', then nothing (the job hung). It names the
    symptom and the context; it is no failure by itself (a healthy init excerpt reads the same)."""
    facts = facts_of("p2p-lightning-19425")
    (stop,) = unfinished(facts)
    assert stop.stage == "connect" and stop.origin.line == 14 and "via P2P/IPC" in stop.origin.text
    assert read_symptom(facts) == "hang" and not shows_failure(facts) and "nccl_init_unfinished" in features(facts)


def test_output_that_stops_after_bootstrap_is_one_too() -> None:
    """vLLM#5484: bootstrap and plugin lines only, no topology or channel line, then nothing."""
    (stop,) = unfinished(facts_of("p2p-vllm-5484"))
    assert stop.stage == "" and stop.info_lines >= 5


def test_a_complete_init_is_not() -> None:
    facts = facts_of("healthy-aws-k8s-tester-454")
    assert any(f.KIND == "nccl.log_end" and f.stage in ("complete", "running") for f in facts)
    assert unfinished(facts) == [] and read_symptom(facts) is None


def test_an_error_after_the_init_lines_says_why_it_stopped() -> None:
    """Azure HPC images#327: the init stops at graph setup, and a failure line follows: that line is the sign."""
    facts = facts_of("env-azhpc-images-327")
    assert any(f.KIND == "log.error_line" for f in facts) and unfinished(facts) == []


def test_a_quoted_line_is_an_excerpt_not_a_log_that_stopped() -> None:
    """AReaL#639 quotes one 'NET/Socket : Using [0]bond0' line."""
    assert unfinished(facts_of("ib-not-used-areal-639")) == []


def test_the_report_says_where_nccl_stopped(doctor_cli) -> None:
    """Without a stated symptom the input is healthy by doctor's definition (no error line, no measurement outside its
    expectation): exit 0, and the text says where NCCL stopped. Told the job hangs, doctor guesses with that note."""
    case = str(CASES / "p2p-lightning-19425" / "input")
    quiet = doctor_cli("analyze", case)
    assert quiet.returncode == 0 and "No known cause found" in quiet.stdout
    assert "stops inside communicator init at" in quiet.stdout and "nccl_debug.log:14" in quiet.stdout
    told = json.loads(doctor_cli("analyze", "--json", "--symptom", "hang", case).stdout)
    guesses = [d for d in told["diagnoses"] if not d["rules"]]
    assert guesses and all(d["confidence"] < 0.5 for d in guesses)
    assert "p2p_broken" in [d["cause"] for d in guesses]
    note = guesses[0]["evidence"][0]
    assert note["line"] == 14 and "stops here, inside communicator init" in note["note"]


def test_init_timings_mean_the_communicator_came_up() -> None:
    """NCCL >= 2.22 prints 'Init timings: rank 5 nranks 8 total 2.46 (...)' once a communicator is up: eight H100 ranks
    that printed only those lines (nccl#534, held-out batch CI) did not stop inside init."""
    facts = facts_of("healthy-nccl-534-nccl2223-init-timings-8xh100")
    assert not unfinished(facts) and read_symptom(facts) != "hang"
