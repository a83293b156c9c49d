"""GPU library and driver version failures in the wordings real inputs use (issue 12, GPU/version area).

Each text is real output (the case or thread named beside it); each test asserts the fact the probe must read from
it, or that a near-miss wording gives none.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors
from probes.fabric_manager import FabricManagerLines
from probes.nccl_errors import NcclErrors

# fixtures/cases/version-awsome-distributed-ai-292: aws-ofi-nccl 1.9.0 built against a newer Libfabric than the node's
PLUGIN_SYMBOL_VERSION = (
    " [0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found (required "
    "by /fsx/ubuntu/awsome-distributed-training/3.test_cases/10.FSDP/pt_fsdp/lib/python3.10/site-packages/torch/lib/"
    "../../../../libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation\n")
# a conda environment's torch with the system's older libstdc++ (a public note on GLIBCXX_3.4.29): the C++ runtime,
# not a GPU library, is too old
LIBSTDCXX_TOO_OLD = (
    "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
    "/home/juchan/miniconda3/envs/crowded/lib/python3.9/site-packages/torch/lib/libtorch_python.so) \n")

# fixtures/cases/version-vllm-1726: torch's DistBackendError, then NCCL's reason under "Last error:" without a prefix
CONFIG_FROM_NEWER_HEADER = """\
DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid argument, NCCL version 2.14.3
ncclInvalidArgument: Invalid value for an argument.
Last error:
Invalid config blocking attribute value -2147483648
"""
# fixtures/cases/version-vllm-3069: the same limit as NCCL's own WARN line
GRAPH_CAPTURE_WARN = ("NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 "
                      "or if the installed CUDA driver < R465.\n")

# fixtures/cases/driver-pytorch-129749: `systemctl status nvidia-fabricmanager` of a failed service
FM_STATUS_FAILED = """\
\u25cf nvidia-fabricmanager.service - NVIDIA fabric manager service
     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)
     Active: failed (Result: exit-code) since Mon 2024-07-01 14:43:57 UTC; 5s ago
    Process: 444114 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=1/FAILURE)
"""
# NVIDIA/gpu-operator#544: Fabric Manager's own refusal
FM_MISMATCH = ("nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with "
               "driver version 530.41.03. Please update with matching NVIDIA driver package.\n")


def kinds(facts, kind):
    return [f for f in facts if f.KIND == kind]


def test_a_versioned_symbol_a_gpu_library_lacks_is_a_missing_symbol() -> None:
    (err,) = kinds(parse_lines(CudaErrors, PLUGIN_SYMBOL_VERSION), "cuda.error")
    assert err.error == "symbol_missing"
    assert "FABRIC_1.7" in err.detail


def test_a_c_runtime_too_old_is_not_a_gpu_library_mismatch() -> None:
    assert not kinds(parse_lines(CudaErrors, LIBSTDCXX_TOO_OLD), "cuda.error")


def test_nccls_reason_under_last_error_is_read_as_its_warn() -> None:
    (warn,) = kinds(parse_lines(NcclErrors, CONFIG_FROM_NEWER_HEADER), "nccl.warn")
    assert (warn.origin.line, warn.message) == (4, "Invalid config blocking attribute value -2147483648")


def test_the_graph_capture_warn_is_read_once() -> None:
    (warn,) = kinds(parse_lines(NcclErrors, GRAPH_CAPTURE_WARN), "nccl.warn")
    assert warn.message.startswith("NCCL cannot be captured in a graph")


def test_a_failed_fabric_manager_start_is_read_from_its_process_line() -> None:
    (fm,) = kinds(parse_lines(FabricManagerLines, FM_STATUS_FAILED), "gpu.fabric_manager")
    assert (fm.origin.line, fm.state) == (4, "failed")


def test_fabric_managers_version_refusal_names_both_versions() -> None:
    (fm,) = kinds(parse_lines(FabricManagerLines, FM_MISMATCH), "gpu.fabric_manager")
    assert (fm.state, fm.fm_version, fm.driver_version) == ("version_mismatch", "530.30.02", "530.41.03")


def test_a_running_fabric_manager_gives_nothing() -> None:
    text = open("fixtures/logs/fabricmanager-status-running.txt", encoding="utf-8").read()
    assert not kinds(parse_lines(FabricManagerLines, text), "gpu.fabric_manager")


# The NVIDIA userspace and the loaded kernel module of different versions, in each tool's words (verbatim lines):
# fixtures/cases/driver-biop-desktop-27, driver-mxnet-21114, driver-nvtop-125
DRIVER_LIBRARY_MISMATCH = (
    "Failed to initialize NVML: Driver/library version mismatch\n",
    "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.\n",
    "Impossible to initialize nvidia nvml : Driver/library version mismatch\n",
)
# nvidia-smi's healthy header and a Ray version error: a 'version' and a 'mismatch' that are not the driver's
NOT_DRIVER_LIBRARY = (
    "| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |\n",
    "Exception: Version mismatch: The cluster was started with:\n",
)


def test_every_wording_of_the_driver_library_mismatch_is_read() -> None:
    for text in DRIVER_LIBRARY_MISMATCH:
        (err,) = kinds(parse_lines(CudaErrors, text), "cuda.error")
        assert err.error == "driver_library_mismatch", text


def test_other_version_lines_are_no_driver_library_mismatch() -> None:
    for text in NOT_DRIVER_LIBRARY:
        assert not kinds(parse_lines(CudaErrors, text), "cuda.error"), text


# fixtures/cases/shm-detectron2-384 (verbatim); a worker's own exception is no vanished worker
WORKER_EXITED = "RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly\n"
WORKER_RAISED = "KeyError: Caught KeyError in DataLoader worker process 0.\n"


def test_a_dataloader_worker_that_vanished_is_read_with_its_pid() -> None:
    (w,) = kinds(parse_lines(CudaErrors, WORKER_EXITED), "worker.exited")
    assert w.pids == "25"
    assert not kinds(parse_lines(CudaErrors, WORKER_RAISED), "worker.exited")


# fixtures/cases/shm-semseg-pytorch-80 (verbatim): older PyTorch's wording, one pid and the exit code
WORKER_EXITED_OLD = "RuntimeError: DataLoader worker (pid 7948) exited unexpectedly with exit code 1\n"


def test_the_older_single_pid_wording_is_the_same_sign() -> None:
    (w,) = kinds(parse_lines(CudaErrors, WORKER_EXITED_OLD), "worker.exited")
    assert w.pids == "7948"
