"""Facts about GPUs: CUDA errors, hardware faults, memory."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class CudaError(Fact):
    """kind: driver_insufficient | launch_failure | device_busy | illegal_address | no_device | ecc | lib_missing |
    context_oom (creating the CUDA context ran out of memory) | driver_unreachable (nvidia-smi reaches no driver) | no_gpu_found (nvidia-smi: the driver brought up no GPU) |
    no_visible_gpu (the CUDA driver answered and counted no GPU this process may use) | torch_without_cuda (PyTorch
    was built without CUDA) | none_counted (a framework counted no GPU, in its own words, without saying why) | init_unknown (CUDA's
    initialisation failed with its "unknown error": the driver is in a bad state) | nvml_unknown (NVML failed with 'Unknown Error') |
    arch_unsupported (the framework's build has no kernels for this GPU's compute capability) |
    driver_library_mismatch (the NVIDIA userspace, NVML or libcuda, is of another driver version than the loaded
    kernel module) | ipc_open_invalid (an MPI library could not open a peer rank's CUDA IPC handle: INVALID_VALUE) | other."""

    KIND = "cuda.error"
    error: str = "other"
    detail: str = ""


@fact
class GpuFault(Fact):
    """A hardware/driver fault line (dmesg NVRM, Xid; nvidia-smi's infoROM check). fault: xid | reset_required | fell_off_bus |
    gsp | ecc | inforom."""

    KIND = "gpu.fault"
    fault: str = ""
    xid: int = -1
    bus_id: str = ""


@fact
class OomEvent(Fact):
    """A CUDA out-of-memory error, in bytes. -1 means the message did not say. Ratios are of total."""

    KIND = "oom.event"
    device: int = -1
    requested: float = -1
    total: float = -1
    allocated: float = -1
    reserved: float = -1
    free: float = -1
    process_in_use: float = -1     # "this process has X memory in use" (PyTorch >= 2.0)
    outside: float = -1            # memory held outside this process's allocator: total - reserved - free (or - process)
    outside_frac: float = -1
    unallocated_frac: float = -1   # (reserved - allocated) / total: fragmentation
    allocated_frac: float = -1
    request_frac: float = -1
    request_to_allocated: float = -1   # requested / allocated: ~1 when the request copies everything already allocated
    other_processes: int = 0       # PyTorch >= 2.1 lists other processes holding memory
    cache_covers_request: bool = False   # reserved-but-unallocated memory alone exceeds the failed request
    during: str = ""               # "state_dict": the OOM came while a state dict was gathered (FSDP's failed clone() warning);
                                   # "nccl_buffers": NCCL's own allocation failed ("NCCL WARN Cuda failure 2 'out of memory'");
                                   # "engine_pool": vLLM's sleep-mode allocator mapping its pool back (cumem_allocator.cpp)


@fact
class BusError(Fact):
    """A process died of SIGBUS (a DataLoader worker, or a rank as torchrun reports it); shm_hint when the message
    blames shared memory."""

    KIND = "worker.bus_error"
    shm_hint: bool = False


@fact
class WorkerExited(Fact):
    """PyTorch's DataLoader reports that a worker process died with no error of its own ("DataLoader worker (pid(s)
    N) exited unexpectedly"): killed from outside (SIGBUS on a full /dev/shm, the kernel's OOM killer) or crashed."""

    KIND = "worker.exited"
    pids: str = ""


@fact
class TraceFrame(Fact):
    """A notable frame of a Python traceback (what the program was doing when it failed)."""

    KIND = "trace.frame"
    function: str = ""
    activity: str = ""             # checkpoint_load | load_to_saved_device (torch.load, no map_location) | optimizer_state_init | set_device | init_process_group | process_group_setup (a traceback frame that forms process groups) | forward | backward | optimizer_step | optimizer_moments (a frame or source line of torch.optim Adam/AdamW updating exp_avg/exp_avg_sq) | collective


@fact
class GpuDevice(Fact):
    """A GPU seen by a tool: index, PCI bus id, model name."""

    KIND = "gpu.device"
    index: int = -1
    bus_id: str = ""
    name: str = ""
    consumer: bool = False          # GeForce/RTX/Titan: P2P over PCIe is often unsupported or broken


@fact
class FabricManagerState(Fact):
    """NVIDIA Fabric Manager (NVSwitch systems) not running, as its systemd status or its own log says.
    state: failed (the service exited with an error) | version_mismatch (FM refused a driver of another version)."""

    KIND = "gpu.fabric_manager"
    state: str = ""
    fm_version: str = ""           # version_mismatch: the driver interface version FM was built for
    driver_version: str = ""       # version_mismatch: the loaded driver's


@fact
class GpuDiagnostic(Fact):
    """A GPU that NVIDIA DCGM's diagnostic (`dcgmi diag -r N`) failed. test: the diagnostic's row (GPU Memory,
    Diagnostic, SM Stress, ...; "Deployment" for an Error row); gpus: the GPU indices it names, "all" for Fail - All."""

    KIND = "gpu.diagnostic"
    test: str = ""
    gpus: str = ""
    result: str = "fail"
