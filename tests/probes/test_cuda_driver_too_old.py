"""CUDA's cudaErrorCallRequiresNewerDriver ('API call is not supported in the installed CUDA driver') read as a driver
too old for the CUDA in use (issue 12, held-out batches BQ, BU), on real inputs; so is nvidia-docker refusing an image."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def cuda_errors(case: str) -> list[str]:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = gather_files([str(CASES / case / "input")], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return [f.error for f in facts if f.KIND == "cuda.error"]


def test_turbomind_runtime_error_is_a_driver_too_old() -> None:
    # lmdeploy#708: "[TM][ERROR] CUDA runtime error: API call is not supported in the installed CUDA driver"
    assert "driver_insufficient" in cuda_errors("driver-lmdeploy-708-turbomind-cuda114-driver")


def test_ncclS_own_warn_of_it_is_a_driver_too_old_too() -> None:
    # nccl#496: "enqueue.cc:802 NCCL WARN Cuda failure 'API call is not supported in the installed CUDA driver'"
    assert "driver_insufficient" in cuda_errors("driver-nccl-496-r460-enhanced-compat")


def test_nvidia_docker_refusing_an_image_newer_than_the_driver() -> None:
    # nvidia-docker#68 (2016: "unsupported CUDA version: 7.5 < 6.5") and h2o4gpu#298 (2017: "driver 8.0 < image 9.0.176")
    for case in ("driver-nvidia-docker-68-cuda65-driver-image75", "driver-h2o4gpu-298-driver80-image90"):
        assert cuda_errors(case) == ["driver_insufficient"], case
