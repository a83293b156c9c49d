"""Failure lines that error_lines did not read, each from a real case that doctor called healthy (issue 12).

- glog's severity F, as JAX/XLA print it: "F0926 ... client.h:77] Terminating process because the JAX distributed
  service detected fatal errors." (JAX's fault-tolerance docs; fixtures/cases/desync-jax-docs-task3-stopped-heartbeats).
  Since, the tensorflow probe reads that line as a lost peer and COLL006 explains it
  (tests/probes/test_coordination_service_task_died.py).
- UCX's crash handler: "==== backtrace ====" opening the stack of a fatal signal whose own line the paste left out
  (ucx#3776; fixtures/cases/env-misuse-ucx-3776-tls-gdr-copy-without-cuda-copy, held-out batch LI: read healthy).
- glog's E and F in the short form without a time stamp, as NIXL prints them: "E ucx_utils.cpp:585] VRAM memory is
  detected as host by UCX." (nixl#1628, fixtures/cases/ksb-nixl-1628-cu13-wheel-ucx-cuda-modules-not-found, batch LL).
- Windows' segmentation fault: "CNTK: Caught Win32 exception 0xc0000005: Access violation." (CNTK#913;
  fixtures/cases/ksb-cntk-913-mpiexec-2gpu-access-violation-after-epoch)
- nccl-tests' summary when results were wrong: "# Out of bounds values : 16 FAILED" (nccl#1261;
  fixtures/cases/ksb-nccl-1261-a100-nv4-forced-ll128-oob). Its healthy form "... : 0 OK" stays no failure.
- Open MPI's error handler: "*** An error occurred in MPI_Bcast" / "*** MPI_ERR_TRUNCATE: message truncated"
  (users list 2007/10/4133, held-out batch NF: read healthy among the application's DEBUG lines).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from probes.error_lines import classify

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


@pytest.mark.parametrize("case, line", [
    ("ksb-cntk-913-mpiexec-2gpu-access-violation-after-epoch", "Caught Win32 exception 0xc0000005: Access violation."),
    ("ksb-nccl-1261-a100-nv4-forced-ll128-oob", "# Out of bounds values : 16 FAILED"),
    ("ksb-nixl-1628-cu13-wheel-ucx-cuda-modules-not-found", "VRAM memory is detected as host by UCX."),
    # Open MPI's error handler aborting in a collective, between an application's DEBUG lines (users list 2007/10/4133)
    ("collective-desync-ompi-users-2007-4133-unmatched-bcast-truncate", "*** MPI_ERR_TRUNCATE: message truncated"),
])
def test_the_failure_line_makes_the_input_a_failure(case: str, line: str) -> None:
    report = diagnose_files([str(CASES / case / "input")])
    assert not report.healthy
    assert any(line in e.text for e in report.unexplained_lines)


def test_glog_severity_f_is_a_failure_and_i_is_not() -> None:
    assert classify("F0105 23:50:34.026692   34204 client.h:77] Terminating process because the JAX "
                    "distributed service detected fatal errors.\n") == "error"
    assert classify("I0105 23:50:34.026692   34204 client.h:77] Connected to distributed JAX controller\n") == ""


def test_nccl_tests_summary_of_no_wrong_values_is_no_failure() -> None:
    assert classify("# Out of bounds values : 0 OK\n") == ""


def test_ucx_backtrace_header_is_a_crash() -> None:
    assert classify("==== backtrace (tid:  22472) ====\n") == "signal"
    assert classify("Tue Apr 10 02:29:25 2018[1,383]<stderr>:==== backtrace ====\n") == "signal"
    assert classify("print the backtrace ==== here\n") == ""
    assert not diagnose_files([str(CASES / "env-misuse-ucx-3776-tls-gdr-copy-without-cuda-copy" / "input")]).healthy


def test_short_glog_severities_e_and_f_are_errors_and_w_is_not() -> None:
    assert classify("E ucx_utils.cpp:585] VRAM memory is detected as host by UCX.\n") == "error"
    assert classify("W ucx_utils.cpp:631] 4 NVIDIA GPU(s) were detected, but UCX CUDA support was not found!\n") == ""
