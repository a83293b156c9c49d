"""A CUDACHECK macro's report says "Cuda error" or "CUDA failure" with a file:line or a quoted message and no colon:
vLLM's custom all-reduce (vllm#52778, held-out batch GX: read as a healthy input before, no error line at all),
nccl-tests' common.cu. Each is an error line; a sentence that only mentions CUDA errors is not."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.error_lines import ErrorLines

VLLM = "Cuda error /workspace/csrc/custom_all_reduce.cuh:143 'invalid resource handle'"
NCCL_TESTS = "test: Test CUDA failure common.cu:941 'system not yet initialized'"
SAMPLES = 'CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) "cudaSetDevice(currentDevice)" '
PROSE = "Enable CUDA error checking with CUDA_LAUNCH_BLOCKING=1 when debugging"


def forms(text: str) -> list[str]:
    return [f.form for f in parse_lines(ErrorLines, text + "\n") if f.KIND == "log.error_line"]


def test_custom_all_reduce_cudacheck() -> None:
    assert forms(VLLM) == ["error"]


def test_nccl_tests_and_cuda_samples() -> None:
    assert forms(NCCL_TESTS) == ["error"]
    assert forms(SAMPLES) == ["error"]


def test_a_sentence_about_cuda_errors_is_none() -> None:
    assert forms(PROSE) == []
