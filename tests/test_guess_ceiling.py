"""A cause no rule supports is a guess from the symptom alone: it is shown with the check that tells it apart, never
at an alarm's 0.5 (doctor/judgement/model.py GUESS_CEILING). Real inputs: a health check that fails by design, whose
error lines once made the crash guess known_software_bug an alarm, and a crash whose only line is CUDA's illegal
memory access (the guess is the crash's usual cause, said as a possibility), and an NCCL WARN a rule reads (the
guess stays under the cause the rule reads, model.guess_cap)."""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.judgement.metrics import ALARM
from doctor.judgement.model import BELOW_READ_CAUSE, GUESS_CEILING

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"
HEALTH_CHECK_BY_DESIGN = CASES / "healthy-nhc-162-h100-pcie-nvlink-by-design" / "input"   # NVLink absent by design
ILLEGAL_ADDRESS_ONLY = CASES / "desync-vllm-6042" / "input"
MODIFY_QP_NO_SUCH_DEVICE = CASES / "roce-gid-nccl-718" / "input"    # the fitted crash guess outweighs the rule's cause


def test_the_ceiling_is_under_the_alarm() -> None:
    assert GUESS_CEILING < ALARM


def test_a_health_check_failing_by_design_raises_no_alarm() -> None:
    report = diagnose_files([str(HEALTH_CHECK_BY_DESIGN)])
    assert report.diagnoses and all(d.confidence < ALARM for d in report.diagnoses)


def test_a_guess_keeps_its_rank_and_gives_the_rest_to_unexplained() -> None:
    report = diagnose_files([str(ILLEGAL_ADDRESS_ONLY)])
    first = report.diagnoses[0]
    assert not first.rules and first.confidence == GUESS_CEILING    # its fitted probability is higher
    assert [d.confidence for d in report.diagnoses] == sorted((d.confidence for d in report.diagnoses), reverse=True)
    assert report.unexplained >= 1 - GUESS_CEILING - sum(d.confidence for d in report.diagnoses[1:]) - 0.001


def test_a_guess_stays_under_the_cause_a_rule_reads() -> None:
    report = diagnose_files([str(MODIFY_QP_NO_SUCH_DEVICE)])
    first, guesses = report.diagnoses[0], [d for d in report.diagnoses if not d.rules]
    assert first.rules and guesses                       # 'ibv_modify_qp failed with error No such device': IB rules
    assert all(g.confidence < first.confidence for g in guesses)
    assert all(g.confidence <= BELOW_READ_CAUSE * first.confidence + 0.001 for g in guesses)   # shown to 3 decimals


MIXED_HCA_LIST_RUN_FINISHED = CASES / "healthy-mlperf-v51-dell-2node-b200-mixed-roce-ib-hcas" / "input"


def test_nccls_device_list_on_a_run_that_shows_no_failure_is_a_setting_not_an_alarm() -> None:
    """NCCL's 'NET/IB : Using' list mixing 8 RoCE and 4 IB/SHARP ports, in an MLPerf result log that ran to its
    end (held-out batch ML: ib_hca_mismatch 0.979 before). IB600 still reads it, held under the alarm as any setting
    is where nothing failed (evidence.SETTING_KINDS)."""
    report = diagnose_files([str(MIXED_HCA_LIST_RUN_FINISHED)])
    first = report.diagnoses[0]
    assert first.cause == "ib_hca_mismatch" and "IB600" in first.rules
    assert first.confidence <= GUESS_CEILING < ALARM


SMALL_SHM_NOTHING_FAILED = CASES / "healthy-awsome-dt-slurm-studio-df-shm-392m" / "input"
SMALL_SHM_AND_ITS_FAILURE = CASES / "shm-kserve-3791" / "input"


def test_a_small_dev_shm_on_an_input_that_shows_no_failure_is_context_not_an_alarm() -> None:
    """A login node's df -h with a 392M /dev/shm, shown by AWS as the expected listing (held-out batch MV:
    shm_too_small 0.99 before). NODE001 still reads it, held under the alarm: a size, like a limit, is how the node
    was set up, not a sign that anything failed. Its Lustre mount '10.1.53.46@tcp:/...' names no node."""
    report = diagnose_files([str(SMALL_SHM_NOTHING_FAILED)])
    first = report.diagnoses[0]
    assert first.cause == "shm_too_small" and "NODE001" in first.rules
    assert first.confidence <= GUESS_CEILING < ALARM
    assert {f.node for f in report.facts} == {""}


def test_a_small_dev_shm_beside_its_failure_still_alarms() -> None:
    report = diagnose_files([str(SMALL_SHM_AND_ITS_FAILURE)])
    first = report.diagnoses[0]
    assert first.cause == "shm_too_small" and "NODE001" in first.rules and first.confidence >= ALARM
