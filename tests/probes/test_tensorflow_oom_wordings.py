"""GPU out-of-memory in TensorFlow's, Keras's and JAX/XLA's words (issue 12, held-out batch IP).

Before, only PyTorch's wordings and TensorFlow's BFC warning started an OOM message; the others read as an
unexplained error line (the crash guess) or as nothing at all. Every line below is real output from the case named
beside it (fixtures/cases/...).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.oom import OomMessages

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def events(text: str) -> list:
    return [f for f in parse_lines(OomMessages, text) if f.KIND == "oom.event"]


@pytest.mark.parametrize("text, requested", [
    ("  tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
     "shape[32,35,35,320]\n", -1),                                             # keras-inception-resnet-v2#3
    ("ResourceExhaustedError (see above for traceback): OOM when allocating tensor of shape [563354,256] and type "
     "float\n", -1),                                                           # text-classification-models-tf#4
    ("InternalError (see above for traceback): Dst tensor is not initialized.\n", -1),          # CapsNet-Tensorflow#39
    (" E T:\\src\\github\\tensorflow\\tensorflow\\stream_executor\\cuda\\cuda_driver.cc:936] failed to allocate 378.60M "
     "(396990720 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY\n", 396990720),     # captcha_trainer#16
    ("[1] 2019-06-13 01:17:08.886805: E external/org_tensorflow/tensorflow/compiler/xla/python/local_client.cc:672] "
     "Execution of replica 0 failed: Resource exhausted: Out \nof memory while trying to allocate 5520758552 bytes.\n",
     5520758552),                                                              # jax#788, hard-wrapped as posted
    ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node __wrapped__Mul_device_/job:"
     "localhost/replica:0/task:0/device:GPU:0}} failed to allocate memory [Op:Mul]\n", -1),   # flower#3159, TF 2.x eager
])
def test_a_tensorflow_or_xla_oom_is_an_oom(text: str, requested: int) -> None:
    found = events(text)
    assert len(found) == 1
    assert found[0].get("requested") == requested


def test_the_bfc_notice_that_says_it_is_no_failure_is_no_oom() -> None:
    notice = ("W tensorflow/core/common_runtime/bfc_allocator.cc:237] Allocator (GPU_0_bfc) ran out of memory trying "
              "to allocate 2.39GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean "
              "that there could be performance gains if more memory were available.\n")   # tensorpack#1303
    assert events(notice) == []


def test_the_same_run_failing_later_is_read_from_its_failure() -> None:
    report = diagnose_files([str(CASES / "oom-act-captcha-trainer-16-2gb-gpu-batch-and-resize" / "input")])
    assert report.diagnoses and report.diagnoses[0].cause.startswith("oom_")


def test_the_tensorpack_notice_run_is_healthy() -> None:
    report = diagnose_files([str(CASES / "healthy-tensorpack-1303-bfc-not-a-failure-warning" / "input")])
    assert all(d.confidence < 0.5 for d in report.diagnoses)
    assert not any(d.rules for d in report.diagnoses)


def test_a_tf2_eager_oom_is_the_oom_symptom_not_the_crash_guess() -> None:
    """flower#3159 (held-out batch JQ): the server's evaluate ran out of GPU memory the client processes held. Before,
    the line was an unexplained error (the crash guess known_software_bug 0.49 and no memory cause at all)."""
    report = diagnose_files([str(CASES / "stale-gpu-mem-flower-3159-tf-actors-grab-vram" / "input")])
    assert report.diagnoses and all(d.cause.startswith("oom_") or d.cause == "stale_process_gpu_memory"
                                    for d in report.diagnoses)
