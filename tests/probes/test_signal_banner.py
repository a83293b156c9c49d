"""Error lines: Open MPI's crash banner is one, a log-level setting echoed by a launcher is none (issue 12, batches BS, BQ).

Real text: NVIDIA/nccl#1669 (fixtures/cases/bug-nccl-1669-ras-report-during-init-crash), where the banner is the
input's only sign of the crash (before, the input read as healthy), and an Open MPI job recorded here
(fixtures/incidents/mpirun-not-cuda-aware-netns) whose banner is followed by the signal's name.
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.error_lines import ErrorLines, classify

REPO = Path(__file__).resolve().parents[2]
BANNER = "[rtptest1621:405884] *** Process received signal ***\n"          # NVIDIA/nccl#1669
RAS_INFO = "rtptest1621:405884:407462 [0] NCCL INFO RAS client listening socket at ::1<28028>\n"   # the line before it


def test_the_banner_is_a_signal_line() -> None:
    assert classify(BANNER) == "signal"
    assert [f.KIND for f in parse_lines(ErrorLines, BANNER)] == ["log.error_line"]
    assert classify(RAS_INFO) == ""


def test_an_input_that_ends_in_the_banner_is_no_longer_healthy() -> None:
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "bug-nccl-1669-ras-report-during-init-crash" / "input")])
    assert not report.healthy
    assert any("Process received signal" in e.text for e in report.unexplained_lines)


SETTING_ECHO = "LAUNCH INFO 2022-07-20 09:38:33,358 log_level: ERROR\n"   # PaddleFleetX's launcher echoing its config
# (fixtures/cases/healthy-paddlefleetx-deployment-two-node-launch-check: a healthy launch check)


def test_a_log_level_setting_echoed_is_no_error_line() -> None:
    assert classify(SETTING_ECHO) == ""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "healthy-paddlefleetx-deployment-two-node-launch-check"
                                 / "input")])
    assert report.healthy


ALCF = REPO / "fixtures" / "cases" / "healthy-alcf-nccl-tests-polaris-resnet50-aws-ofi-cxi-2node" / "input"


def test_an_environment_dumps_log_level_variable_is_no_error_line() -> None:
    """ALCF's env_aws.dat lists HOROVOD_LOG_LEVEL=ERROR among the job's variables (held-out batch FN): a setting."""
    lines = (ALCF / "env_aws.dat").read_text(encoding="utf-8").splitlines()
    assert "HOROVOD_LOG_LEVEL=ERROR" in lines
    assert [line for line in lines if classify(line)] == []
    assert classify("ERROR: HOROVOD_LOG_LEVEL could not be parsed") == "error"


def test_tuned_nccl_settings_of_a_working_run_stay_under_an_alarm() -> None:
    """With no error line left, ALCF's tuned NCCL_NET_GDR_LEVEL=PHB is a setting read alone: never an alarm."""
    report = diagnose_files([str(ALCF)])
    assert report.unexplained_lines == []
    assert all(d.confidence < 0.5 for d in report.diagnoses)
