"""probes/nccl_errors.py reading NCCL's named CUDA failure as torch repeats it under "Last error:", on real inputs."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def warn_facts(case: str) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = gather_files([str(CASES / case / "input")], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return [f for f in facts if f.KIND == "nccl.warn"]


def warns(case: str) -> list[str]:
    return [f.message for f in warn_facts(case)]


def test_ray_worker_prefixed_last_error_is_read() -> None:
    # vLLM's Ray workers: "(RayWorkerVllm pid=...) ERROR ... ray_utils.py:44] Cuda failure 'invalid argument'"
    assert warns("ksb-vllm-3688") == ["Cuda failure 'invalid argument'"]


def test_numbered_form_of_nccl_2_19_is_read() -> None:
    # "Last error:" then "Cuda failure 217 'peer access is not supported between these two devices'"
    assert warns("p2p-skyrl-108") == ["Cuda failure 217 'peer access is not supported between these two devices'"]


def test_a_warn_line_is_not_read_twice() -> None:
    # the WARN form itself ("enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'") is read as the WARN, with
    # its source, and not a second time as a "Last error:" repeat
    got = [(f.src, f.message) for f in warn_facts("ksb-tensorrt-llm-4238")]
    assert got == [("enqueue.cc:1500", "Cuda failure 1 'invalid argument'")]


def test_nccl_tests_own_failure_line_is_not_a_cuda_failure() -> None:
    # "Test NCCL failure common.cu:777 'unhandled cuda error'": the result code, the CUDA failure not named
    assert warns("driver-nccltests-6-nccl-cuda-build") == []
