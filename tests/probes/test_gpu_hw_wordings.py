"""GPU hardware and driver wordings real inputs use (issue 12, held-out batch AI).

Each text is verbatim from the case named beside it.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors

# fixtures/cases/pcie-cyclenerd-miner-40: nvidia-smi on a host where the GPU on a riser did not come up
NVIDIA_SMI_NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
                        "latest NVIDIA driver is installed and running.\n")
# fixtures/cases/hw-open-gpu-kernel-modules-387: a GPU the driver lost - read as before, not as an unreachable driver
DEVICE_HANDLE_LOST = "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n"


def errors(text: str) -> list[str]:
    return [f.error for f in parse_lines(CudaErrors, text, source="nvidia-smi.txt", node="n1") if f.KIND == "cuda.error"]


def test_nvidia_smi_reaching_no_driver_is_read() -> None:
    assert errors(NVIDIA_SMI_NO_DRIVER) == ["driver_unreachable"]


def test_a_lost_device_handle_stays_a_gpu_off_the_bus() -> None:
    assert errors(DEVICE_HANDLE_LOST) == ["fell_off_bus"]
