"""NCCL notices an old release printed at WARN level and a later one at INFO are not failure lines (issue 12).

The texts are real output: the WARN form from NVIDIA/nccl#259 (NCCL 2.4.8, fixtures/cases/
healthy-nccl-259-gtx-mixed-no-ibverbs; the maintainers: information, not an error) and the INFO form of the same
notice from NCCL 2.18 (NVIDIA/nccl-tests#166).
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.error_lines import ErrorLines, classify
from probes.nccl_errors import NcclErrors
from probes.nccl_log import NcclLogProbe as NcclLog

OLD_WARN = "h0913n-ubuntu:12877:12877 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
NEW_INFO = "ubuntu:39964:40050 [6] NCCL INFO Failed to open libibverbs.so[.1]\n"
REAL_WARN = "node2:14159:14172 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"


def kinds(facts, kind):
    return [f for f in facts if f.KIND == kind]


def test_old_libibverbs_warn_is_a_notice_not_a_failure() -> None:
    assert not kinds(parse_lines(NcclErrors, OLD_WARN), "nccl.warn")
    assert not kinds(parse_lines(ErrorLines, OLD_WARN), "log.error_line")
    assert classify(OLD_WARN) == classify(NEW_INFO) == ""


def test_the_notice_still_says_the_verbs_library_is_missing() -> None:
    for text in (OLD_WARN, NEW_INFO):
        (unavailable,) = kinds(parse_lines(NcclLog, text), "nccl.ib_unavailable")
        assert unavailable.reason == "no_verbs_lib"


def test_a_failed_verbs_call_stays_a_warn_and_an_error_line() -> None:
    (warn,) = kinds(parse_lines(NcclErrors, REAL_WARN), "nccl.warn")
    assert warn.message.startswith("Call to ibv_reg_mr_iova2 failed")
    assert kinds(parse_lines(ErrorLines, REAL_WARN), "log.error_line")


RCCL_MSCCLPP = ("mi325x-01:339:1340 [4] /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_"
                "profiles/src/out/ubuntu-22.04/22.04/build/rccl/hipify/src/init.cc:1954 NCCL WARN MSCCL++: Cannot enable "
                "MSCCL++; environment is not MSCCL compatible\n")   # MLPerf v5.1 MangoBoost MI325X, an accepted run


def test_rccls_mscclpp_fallback_is_a_notice_not_a_failure() -> None:
    """RCCL sets MSCCL++ off and goes on with its own kernels (ROCm/rccl src/init.cc, commit 0cbce2a)."""
    assert not kinds(parse_lines(NcclErrors, RCCL_MSCCLPP), "nccl.warn")
    assert classify(RCCL_MSCCLPP) == ""
