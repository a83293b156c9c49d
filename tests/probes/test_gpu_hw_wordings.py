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


# fixtures/cases/shm-fastai-docker-21: PyTorch's worker message as pasted, wrapped after "Bus" (held-out batch AQ)
WRAPPED_BUS_ERROR = ("RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\n"
                     "error. It is possible that dataloader's workers are out of shared\n"
                     "memory. Please try to raise your shared memory limit.\n")


def test_a_bus_error_wrapped_after_bus_is_read() -> None:
    facts = [f for f in parse_lines(CudaErrors, WRAPPED_BUS_ERROR, source="err.txt", node="n1") if f.KIND == "worker.bus_error"]
    assert [(f.origin.line, f.shm_hint) for f in facts] == [(1, False)]


def test_a_signal_named_otherwise_is_no_bus_error() -> None:
    """Only the name's end at "Bus" is read: 'killed by signal: Killed.' (the OOM killer) is not SIGBUS."""
    text = "RuntimeError: DataLoader worker (pid 2158) is killed by signal: Killed.\n"
    assert not [f for f in parse_lines(CudaErrors, text, source="err.txt", node="n1") if f.KIND == "worker.bus_error"]


# fixtures/cases/bug-llamafactory-1169-nccl2185-wsl: NCCL 2.18.5's own lookup of libcuda.so on WSL2 (held-out batch AU)
NCCL_CUDAWRAP_LOOKUP = ("DESKTOP-VMBL43V:4163:4163 [0] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so "
                        "(NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory\n")
# the loader's words when a process really cannot load the driver library (no NCCL lookup): still a missing library
LOADER_LIBCUDA_MISSING = "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"


def test_nccls_own_libcuda_lookup_is_no_missing_driver() -> None:
    assert errors(NCCL_CUDAWRAP_LOOKUP) == []


def test_the_loaders_missing_libcuda_stays_read() -> None:
    assert errors(LOADER_LIBCUDA_MISSING) == ["lib_missing"]


# fixtures/cases/driver-qixuema-envs-4-dkms-module-not-built: the same message pasted with a typographic apostrophe
NVIDIA_SMI_NO_DRIVER_TYPOGRAPHIC = ("NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver. Make "
                                    "sure that the latest NVIDIA driver is installed and running.\n")
# fixtures/cases/driver-ethminer-1640-cuda10-on-driver396: a CUDA 10.0 miner on driver 396 (CUDA 9.2)
INSUFFICIENT_DRIVER = "  CUDA error: Insufficient CUDA driver: 9020\n"
# fixtures/cases/driver-detectron2-460-torch-not-compiled-cuda: a CPU-only PyTorch asked for the GPU
TORCH_WITHOUT_CUDA = "AssertionError: Torch not compiled with CUDA enabled\n"
# fixtures/cases/hw-pytorch-88639-cuda-unknown-after-suspend: cuInit's CUDA_ERROR_UNKNOWN in PyTorch's warning
CUDA_INIT_UNKNOWN = ("/opt/anaconda3/lib/python3.8/site-packages/torch/cuda/__init__.py:88: UserWarning: CUDA initialization: "
                     "CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable "
                     "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.\n")


def test_the_typographic_apostrophe_is_the_same_message() -> None:
    assert errors(NVIDIA_SMI_NO_DRIVER_TYPOGRAPHIC) == ["driver_unreachable"]


def test_more_driver_and_build_wordings() -> None:
    assert errors(INSUFFICIENT_DRIVER) == ["driver_insufficient"]
    assert errors(TORCH_WITHOUT_CUDA) == ["torch_without_cuda"]
    assert errors(CUDA_INIT_UNKNOWN) == ["init_unknown"]
