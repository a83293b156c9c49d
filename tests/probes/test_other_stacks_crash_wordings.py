"""Crash and shared-memory wordings of stacks around PyTorch+NCCL that read as healthy or as a bare crash before
(held-out batches DN and DP, scored on c58362d): the ROCm runtime's GPU page fault, oneCCL's error tag and an uncaught
C++ exception, Python's shared-memory objects found gone, CUDA's "no CUDA-capable device".

Each input is a public case's own file, verbatim (fixtures/cases/<id>/input).
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.judgement.context import narrowing_sign
from doctor.judgement.unknowns import sign_causes

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
ROCM_FAULT = CASES / "ksb-megatron-deepspeed-201-rocm54-memory-access-fault-first-barrier" / "input"
ONECCL_ABORT = CASES / "ksb-ipex-640-oneccl-2021-12-reduce-scatter-device-oom" / "input"
PSM_GONE = CASES / "shm-vllm-54259-removeipc-ray-shm-ring-buffer" / "input"
SEMAPHORES_GONE = CASES / "shm-mlcommons-storage-447-removeipc-semlock" / "input"
NO_DEVICE_AFTER_KERNEL_UPDATE = CASES / "driver-deepnet-28-kernel-updated-no-reboot" / "input"
NO_DEVICE_HIDDEN = CASES / "rank-time-series-library-10-visible-devices-2-one-gpu" / "input"


def test_a_rocm_gpu_page_fault_is_a_crash_not_a_healthy_log() -> None:
    """Before: 'Memory access fault by GPU node-2 ... Page not present' matched no probe, so the one-line log was healthy."""
    report = diagnose_files([str(ROCM_FAULT)])
    assert not report.healthy
    assert any(f.KIND == "cuda.error" and f.error == "illegal_address" for f in report.facts)


def test_a_oneccl_error_and_an_uncaught_cpp_exception_are_failure_lines() -> None:
    """Before: '|CCL_ERROR| ...' (no word boundary before ERROR) and 'terminate called after throwing an instance of
    'ccl::v1::exception'' were no error lines, and the run that died read as healthy."""
    report = diagnose_files([str(ONECCL_ABORT)])
    assert not report.healthy
    lines = {f.text for f in report.facts if f.KIND == "log.error_line"}
    assert any("|CCL_ERROR|" in t for t in lines)
    assert any(t.startswith("terminate called after throwing") for t in lines)


def test_a_python_segment_gone_at_open_is_the_shm_attach_sign() -> None:
    """vllm#54259: a reader opening its writer's '/psm_*' segment finds it gone: the attach sign, whose
    differential lists the /dev/shm cleaned under the job (shm_too_small) among its causes."""
    report = diagnose_files([str(PSM_GONE)])
    assert narrowing_sign(report.facts) == "shm_segment_not_opened"
    assert "shm_too_small" in {d.cause for d in report.diagnoses}
    assert "shm_too_small" in sign_causes()["shm_segment_not_opened"]


def test_the_jobs_own_semaphores_gone_at_exit_is_shm005() -> None:
    """mlcommons/storage#447: the resource tracker found the job's '/mp-*' semaphores deleted (logind's RemoveIPC)."""
    report = diagnose_files([str(SEMAPHORES_GONE)])
    assert report.diagnoses and report.diagnoses[0].cause == "shm_too_small"
    assert "SHM005" in report.diagnoses[0].rules


def test_no_cuda_device_is_a_sign_of_three_causes_not_a_sure_visibility_error() -> None:
    """deepnet#28: 'no CUDA-capable device is detected' after a kernel update without a reboot. Before, RANK960 alone
    answered rank_config_error 0.95 and the driver was not in the list; the sign keeps it among the answers."""
    for path in (NO_DEVICE_AFTER_KERNEL_UPDATE, NO_DEVICE_HIDDEN):
        report = diagnose_files([str(path)])
        assert narrowing_sign(report.facts) == "no_visible_gpu", path.parent.name
        causes = [d.cause for d in report.diagnoses]
        assert {"rank_config_error", "cuda_driver_mismatch"} <= set(causes[:3]), (path.parent.name, causes)
    assert set(sign_causes()["no_visible_gpu"]) == {"rank_config_error", "cuda_driver_mismatch", "gpu_hw_fault"}


XID13_MASKED_BUS = CASES / "ksb-sirzzang-rtx5090-nccl-2262-cuda122-no-sm120-xid13" / "input"
WATCHDOG_STUCK = CASES / "ksb-open-r1-478-grpo-watchdog-stuck-480s" / "input"


def test_an_xid_whose_bus_id_the_poster_masked_is_still_an_xid() -> None:
    """Held-out batch DR: 'NVRM: Xid (PCI:0000:XX:00): 13, Graphics SM Warp Exception ...' read as nothing before, so
    a dmesg of a kernel fault and its channel reset (Xid 43) was healthy."""
    report = diagnose_files([str(XID13_MASKED_BUS)])
    assert not report.healthy
    assert sorted({f.xid for f in report.facts if f.KIND == "gpu.fault"}) == [13, 43]


def test_a_watchdog_thread_stuck_is_its_own_sign_not_a_desync() -> None:
    """Held-out batch DT (open-r1#478): the heartbeat monitor's 'watchdog got stuck for 480 seconds' was answered
    collective_desync 0.53 by the hang's guess; it is the watchdog thread blocked in a CUDA/NCCL call."""
    report = diagnose_files([str(WATCHDOG_STUCK)])
    assert narrowing_sign(report.facts) == "watchdog_thread_stuck"
    assert report.diagnoses[0].cause == "known_software_bug" and report.diagnoses[0].confidence < 0.5
    assert set(sign_causes()["watchdog_thread_stuck"]) == {"known_software_bug", "gpu_hw_fault", "collective_desync"}
