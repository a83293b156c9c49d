"""CUDA runtime/driver errors, GPU hardware faults (dmesg NVRM/Xid), DataLoader bus errors.

Sample input:
    init.cu:674 WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'
    RuntimeError: CUDA error: unspecified launch failure
    [Sun Jan 11 09:52:01 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.
    NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062)
    ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
    ... failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 11523260416
"""
from __future__ import annotations

import re

from doctor.facts.gpu import BusError, CudaError, GpuFault, WorkerExited
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_CUDA: tuple[tuple[str, str], ...] = (
    ("driver version is insufficient", "driver_insufficient"), ("cudaErrorInsufficientDriver", "driver_insufficient"),
    ("NVIDIA driver on your system is too old", "driver_insufficient"), ("Insufficient CUDA driver", "driver_insufficient"), ("forward compatibility was attempted", "driver_insufficient"),
    # cudaErrorCallRequiresNewerDriver (36): the runtime calls an API the installed driver does not have
    ("API call is not supported in the installed CUDA driver", "driver_insufficient"),
    # cudaErrorUnsupportedPtxVersion (222): the code's PTX comes from a CUDA newer than the driver can compile
    ("the provided PTX was compiled with an unsupported toolchain", "driver_insufficient"),
    # an NGC container's start-up check ("ERROR: This container was built for NVIDIA Driver Release 535.86 or later,
    # but / version 510.85.02 was detected and compatibility mode is UNAVAILABLE."): the image's CUDA needs a newer
    # host driver and forward compatibility cannot bridge it (TensorRT-LLM#23). Its ENABLED / supported variants are
    # notices, not read
    ("compatibility mode is UNAVAILABLE", "driver_insufficient"),
    ("ERROR: This container was built for NVIDIA Driver Release", "driver_insufficient"),
    ("unspecified launch failure", "launch_failure"), ("busy or unavailable", "device_busy"),
    ("illegal memory access", "illegal_address"), ("uncorrectable ECC error", "ecc"),
    # the ROCm runtime's words for the same GPU page fault (HSA): "Memory access fault by GPU node-2 (Agent handle:
    # 0x580db0) on address 0x18000. Reason: Page not present or supervisor privilege." - the process aborts on it
    # (Megatron-DeepSpeed#201: a ROCm 5.4 build at its first collective)
    ("Memory access fault by GPU", "illegal_address"),
    ("Found no NVIDIA driver", "no_device"),
    # the CUDA driver answered and counted no device this process may use (cudaErrorNoDevice, 100; PyTorch's "No CUDA
    # GPUs are available"; the driver API's CUDA_ERROR_NO_DEVICE): CUDA_VISIBLE_DEVICES empty or naming GPUs the
    # machine lacks, a container or Slurm job given no GPU, no MIG instance. A missing driver reads otherwise (above)
    ("no CUDA-capable device is detected", "no_visible_gpu"), ("No CUDA GPUs are available", "no_visible_gpu"),
    ("CUDA_ERROR_NO_DEVICE", "no_visible_gpu"),
    ("libcuda.so", "lib_missing"), ("libnccl.so", "lib_missing"), ("libcudart.so", "lib_missing"),
    # XLA's words when its dlopen of libnccl failed: "NCCL operation ncclGetUniqueId(&id) failed: Unable to load NCCL
    # library. Multi-GPU collectives will not work." (jax#18391: a jaxlib install that no longer vendors NCCL)
    ("Unable to load NCCL library", "lib_missing"),
    # PyTorch's own words when a CUDA call reaches a build made without CUDA (a CPU-only wheel or conda build):
    # "AssertionError: Torch not compiled with CUDA enabled" from torch/cuda/__init__.py (detectron2#460)
    ("Torch not compiled with CUDA enabled", "torch_without_cuda"),
    # PyTorch's words when cuInit failed with CUDA_ERROR_UNKNOWN (999): "UserWarning: CUDA initialization: CUDA unknown
    # error - this may be due to an incorrectly set up environment ... Setting the available devices to be zero." (and
    # the same as a RuntimeError). The driver itself is in a bad state; which way, the line does not say (a narrowing sign)
    ("CUDA unknown error - this may be due to an incorrectly set up environment", "init_unknown"),
    ("undefined symbol: nccl", "symbol_missing"), ("undefined symbol: cuda", "symbol_missing"),
    # the linker's words for the same miss: a shared library built against a newer NCCL than the one linked
    # ("ld: .../libtorch_cuda.so: undefined reference to `ncclWaitSignal'"); an object of the program itself that
    # misses -lnccl names no .so and is a build error, not read
    (".so: undefined reference to `nccl", "symbol_missing"),
    ("GPU is lost", "fell_off_bus"), ("Unable to determine the device handle", "fell_off_bus"),
    # nvidia-smi's words when no driver answers: the module is not loaded (or does not match), or the GPU it
    # should drive did not come up on the bus
    # (without its apostrophe: pasted text may carry a typographic one, "couldn‘t", qixuema/envs#4)
    ("communicate with the NVIDIA driver", "driver_unreachable"),
    # nvidia-smi's words when the driver answers but brought up no GPU (NVML counts none): the driver does not support
    # this GPU or kernel, the GPU failed to initialise (RmInitAdapter), its VBIOS/firmware is too old for the driver,
    # or a container was given no GPU. No rule names one of these: a narrowing sign (context.NARROWING_SIGNS)
    ("No devices were found", "no_gpu_found"),
    # NVML refused to start for a reason it does not name: in a container whose device access the runtime lost (a
    # systemd daemon-reload under cgroups, a known bug of the NVIDIA container stack), or one started without the GPU
    # devices, or a broken driver install. A narrowing sign too ("Driver/library version mismatch" is read as such)
    ("Failed to initialize NVML: Unknown Error", "nvml_unknown"),
    # the framework's build carries no kernels for this GPU's architecture: PyTorch's own warning ("NVIDIA GeForce RTX
    # 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation") and the CUDA error a
    # kernel launch then gets (cudaErrorNoKernelImageForDevice); NCCL's own words for its kernels are NCCL008's
    ("is not compatible with the current PyTorch installation", "arch_unsupported"),
    ("no kernel image is available for execution on the device", "arch_unsupported"),
    ("device-side assert", "device_assert"), ("system not yet initialized", "fabric_manager"),
    ("peer access is not supported", "peer_access"), ("cudaErrorPeerAccessUnsupported", "peer_access"),
    # creating the CUDA context itself ran out of memory: this process had allocated nothing yet
    ("CtxRetain: CUDA_ERROR_OUT_OF_MEMORY", "context_oom"), ("cuCtxCreate: CUDA_ERROR_OUT_OF_MEMORY", "context_oom"),
)
# NCCL 2.13-2.18 dlopen()s the driver library itself by its unversioned name (misc/cudawrap.cc) and says so when that
# fails: "misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot
# open shared object file". The process printing it already runs CUDA through the runtime's libcuda.so.1 (NCCL got the
# device to print this); only the dev-package name is absent (WSL2's /usr/lib/wsl/lib, slim images). Not a missing
# driver: NCCL's lookup (the WSL case is a bug fixed in NCCL 2.18.6, NVIDIA/nccl#1024). A process that really lacks the
# driver fails before NCCL, in the runtime's or the loader's own words, which stay read.
# nvidia-docker 1.x refusing an image whose CUDA is newer than the host driver supports ("Error: unsupported CUDA version:
# driver 8.0 < image 9.0.176"; 2016's form "7.5 < 6.5" put the image first). "driver 0.0 < image ..." is no old driver
# but none found at all (nvidia-docker #190, #257: the driver was not detected), read as no_device
_DOCKER_CUDA = lazy_compile(r"unsupported CUDA version: (?:driver )?\d+(?:\.\d+)* < (?:image )?\d+(?:\.\d+)*")
# nvidia-container-cli (the NVIDIA container toolkit) refusing an image whose NVIDIA_REQUIRE_CUDA asks for a newer CUDA
# than the host driver supports: "requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a
# newer version, or use an earlier cuda container" (dashdot#1226, batch BW). Other conditions (brand, arch) are not this
_CONTAINER_CLI_CUDA = lazy_compile(r"unsatisfied condition: cuda\s*>=\s*\d+(?:\.\d+)*")
# The require list is a disjunction: "--require=cuda>=10.0 brand=tesla,driver>=384,driver<385 ..." holds when the driver
# supports CUDA 10.0 OR the GPU is a Tesla on one of the listed old drivers; the CLI names the last alternative that
# failed, so "unsatisfied condition: brand = tesla" after a cuda>= term means the driver is too old for the image's
# CUDA as well (Determined's docs on this error: update the driver). A brand failure without a cuda>= term is not this.
_CONTAINER_CLI_BRAND = lazy_compile(r"--require=(?P<cuda>cuda>=\d+(?:\.\d+)*)\s+brand=.*unsatisfied condition: brand\b")
_NCCL_CUDA_LOOKUP = "Failed to find CUDA library"
# TensorRT-LLM checks every GPU pair at start-up: "[TensorRT-LLM][WARNING] Device 2 peer access Device 5 is not available."
_PEER_UNAVAILABLE = lazy_compile(r"Device \d+ peer access Device \d+ is not available")
# A framework that checks cudaDeviceCanAccessPeer itself and stops, in its own words: "Error: Peer-to-peer access is
# unsupported on this platform." (DistServe on RTX 4090s, LLMServe/DistServe#39). Only "unsupported" / "not supported":
# simpleP2P's "Peer to Peer access is not available amongst GPUs in the system, waiving test." skips a sample, no failure.
_P2P_UNSUPPORTED = lazy_compile(r"peer[- ]to[- ]peer access is (?:unsupported|not supported)", re.IGNORECASE)
# The dynamic loader's words for a library built against a newer version of another one (a versioned symbol the
# installed library lacks): "libfabric.so.1: version `FABRIC_1.7' not found (required by .../libnccl-net.so)". Read
# only where a GPU communication library is on either side (libstdc++'s GLIBCXX_* misses are someone else's).
_SYMBOL_VERSION = lazy_compile(r"version `(?P<v>[^']+)' not found \(required by [^)]+\)")
_TOOLCHAIN_VERSIONS = ("GLIBC", "CXXABI", "GCC_")   # C/C++ runtime too old: a build environment problem, not ours
_GPU_LIBS = ("nccl", "cuda", "cudart", "cublas", "cudnn", "torch", "fabric", "ibverbs", "mlx5", "nvidia")
# The NVIDIA userspace (NVML, libcuda) and the loaded kernel module are of different driver versions (packages
# updated without a reboot, or an image shipping its own driver libraries), in each tool's words:
#   Failed to initialize NVML: Driver/library version mismatch                      (nvidia-smi)
#   nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.
#   Impossible to initialize nvidia nvml : Driver/library version mismatch         (nvtop)
#   pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.
#   NVRM: API mismatch: the client has the version 525.85.12, but                  (dmesg)
#   CUDA error 803: system has unsupported display driver / cuda driver combination (cudaErrorSystemDriverMismatch)
# A CUDA error given by its number only, as a library's own wrapper prints it ("Cuda driver error 804 in call at file
# '.../geryon/nvd_device.h' in line 333." - LAMMPS' GPU package, lammps#4849). Only the two numbers that mean the same
# in the runtime (cudaError_t) and the driver API (CUresult) and name the driver: 804, forward compatibility attempted on
# a GPU it does not support (cudaErrorCompatNotSupportedOnDevice / CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: the driver
# is too old for this GPU and the CUDA in use); 803, driver and user-space library of different versions
# (cudaErrorSystemDriverMismatch). The CUDA documentation's tables of error codes say so.
_CODE_ERRORS = {"804": "driver_insufficient", "803": "driver_library_mismatch"}
_CUDA_CODE = lazy_compile(r"(?i)\bcuda(?:\s+(?:driver|runtime|api))?\s+error(?:\s+code)?[:=]?\s*(?P<n>80[34])\b")
_DRIVER_LIBRARY = lazy_compile(r"driver/library version mismatch|NVML/RM version mismatch|LibRmVersionMismatch"
                               r"|NVRM: API mismatch: the client has the version"
                               r"|unsupported display driver / cuda driver combination|cudaErrorSystemDriverMismatch",
                               re.IGNORECASE)
# torch.utils.data's watchdog: a worker vanished without raising ("RuntimeError: DataLoader worker (pid(s) 25) exited
# unexpectedly"); its own reason, when printed, comes as a bus error or "killed by signal" line (read above)
_WORKER_EXITED = lazy_compile(r"DataLoader worker \(pid(?:\(s\))? (?P<pids>[\d, ]+)\) exited unexpectedly")   # older PyTorch: "(pid N) exited unexpectedly with exit code 1"
# PyTorch names the signal that killed a worker by strsignal(): "killed by signal: Bus error." A pasted message
# wrapped at the terminal's width can break it after "Bus" (fastai/docker-containers#21); no other signal's name
# starts with "Bus", so the line's end alone says SIGBUS (the shared-memory hint is on the wrapped lines).
_SIGBUS_WRAPPED = lazy_compile(r"killed by signal: Bus\s*$")
# An MPI library's GPU-aware path could not open the CUDA IPC handle a neighbour rank exported: cuIpcOpenMemHandle
# returned CUDA_ERROR_INVALID_VALUE (1), which it does when the handle's device is not visible in this process: per-rank
# GPU binding (Slurm --gpus-per-task / --gpu-bind, one GPU in CUDA_VISIBLE_DEVICES per rank). In each library's words:
#   (GTL DEBUG: 1) cuIpcOpenMemHandle: invalid argument, CUDA_ERROR_INVALID_VALUE, line no 360      (Cray MPICH GTL)
#     cuIpcOpenMemHandle return value:  1                             (Open MPI smcuda, inside its help block)
# Other return values (out of memory, peer access unsupported) are not this reading.
_IPC_OPEN_INVALID = lazy_compile(r"cuIpcOpenMemHandle(?::\s*invalid argument, CUDA_ERROR_INVALID_VALUE"
                                 r"|\s+return value:\s+1\b)")
# the loader's words for a library that did not load: absent, or present for another architecture (dlerror's
# "/usr/lib/libcuda.so.1: wrong ELF class: ELFCLASS32": the 32-bit driver library found first on a 64-bit process,
# Open MPI's CUDA-aware support disabled by it, users list 2015/03/26537)
_LOAD_FAILED = ("cannot open shared object", "not found", "wrong ELF class")
_CAUSED_BY = lazy_compile(r"caused by previous Xid (?P<xid>\d+)")
# the bus id as the driver prints it, or as a poster masked it ("NVRM: Xid (PCI:0000:XX:00): 13, ...", an EKS blog)
_XID = lazy_compile(r"Xid \((?:PCI:)?(?P<bus>[0-9a-fA-FxX:.]+)\): (?P<xid>\d+)")
# the Kubernetes device plugin's health check: "XidCriticalError: Xid=79 on Device=GPU-<uuid>; marking device as
# unhealthy." (NVIDIA GPU Operator troubleshooting), or in later plugins "XidCriticalError: Xid=94 on Device=GPU-<uuid>,
# the device will go unhealthy.": the same driver event as dmesg's NVRM Xid line, named by GPU UUID
_PLUGIN_XID = lazy_compile(r"XidCriticalError: Xid=(?P<xid>\d+) on Device=(?P<dev>\S+?)[;,]")


class CudaErrors(LineProbe):
    name = "cuda_errors"
    yields = ("cuda.error", "gpu.fault", "worker.bus_error", "worker.exited")
    triggers = tuple(words for words, _ in _CUDA) + (
        "NVRM", "Xid", "fallen off the bus", "infoROM is corrupted", "Bus error", "bus error", "unsupported CUDA version",
        "unsatisfied condition: cuda",   # nvidia-container-cli's refusal (_CONTAINER_CLI_CUDA)
        "unsatisfied condition: brand",  # the same, naming the require list's last alternative (_CONTAINER_CLI_BRAND)
        "BUS error",            # PaddlePaddle: "Unexpected BUS error encountered in DataLoader worker"
        "Signal 7 (SIGBUS)",    # torchrun's failure summary of a rank killed by SIGBUS
        "killed by signal: Bus",   # the same line wrapped after "Bus" (_SIGBUS_WRAPPED)
        "peer access Device",   # TensorRT-LLM's start-up check of each GPU pair
        "eer-to-peer access is", "eer to peer access is",   # a framework's own words (_P2P_UNSUPPORTED)
        "' not found (required by",   # the loader: a versioned symbol the installed library lacks
        "ersion mismatch", "VersionMismatch", "API mismatch", "display driver / cuda driver",   # _DRIVER_LIBRARY
        "exited unexpectedly",   # _WORKER_EXITED
        "cuIpcOpenMemHandle",    # _IPC_OPEN_INVALID
        "rror 80", "RROR 80", "rror code 80", "rror: 80")   # _CUDA_CODE

    def feed(self, line_no: int, line: str) -> None:
        if " 80" in line and (code := _CUDA_CODE.search(line)):
            self.ctx.emit(CudaError, line_no, line, error=_CODE_ERRORS[code["n"]], detail=code.group(0))
            return
        if ("ismatch" in line or "display driver" in line) and (m := _DRIVER_LIBRARY.search(line)):
            self.ctx.emit(CudaError, line_no, line, error="driver_library_mismatch", detail=m.group(0))
            return
        if "NVRM" in line or "Xid" in line or "fallen off the bus" in line or "infoROM is corrupted" in line:
            self._fault(line_no, line)
            return
        if "cuIpcOpenMemHandle" in line and _IPC_OPEN_INVALID.search(line):
            self.ctx.emit(CudaError, line_no, line, error="ipc_open_invalid",
                          detail="cuIpcOpenMemHandle: CUDA_ERROR_INVALID_VALUE")
            return
        if "exited unexpectedly" in line and (m := _WORKER_EXITED.search(line)):
            self.ctx.emit(WorkerExited, line_no, line, pids=m["pids"].strip())
            return
        if "bus error" in line.lower() or "Signal 7 (SIGBUS)" in line \
                or ("signal: Bus" in line and _SIGBUS_WRAPPED.search(line)):   # torchrun's summary; a wrapped line
            self.ctx.emit(BusError, line_no, line, shm_hint="shared memory" in line or "shm" in line)
            return
        if "' not found (required by" in line and (m := _SYMBOL_VERSION.search(line)) \
                and not m["v"].startswith(_TOOLCHAIN_VERSIONS) \
                and any(lib in m.group(0).lower() for lib in _GPU_LIBS):
            self.ctx.emit(CudaError, line_no, line, error="symbol_missing", detail=m.group(0)[:120])
            return
        if "peer access Device" in line and _PEER_UNAVAILABLE.search(line):
            self.ctx.emit(CudaError, line_no, line, error="peer_access", detail="peer access is not available")
            return
        if "unsatisfied condition: cuda" in line and (m := _CONTAINER_CLI_CUDA.search(line)):
            self.ctx.emit(CudaError, line_no, line, error="driver_insufficient", detail=m.group(0))
            return
        if "unsatisfied condition: brand" in line and (m := _CONTAINER_CLI_BRAND.search(line)):
            self.ctx.emit(CudaError, line_no, line, error="driver_insufficient",
                          detail=f"unsatisfied condition: {m['cuda']} (or a listed brand/driver pair)")
            return
        if "unsupported CUDA version" in line and (m := _DOCKER_CUDA.search(line)):
            kind = "no_device" if "driver 0.0 <" in line else "driver_insufficient"
            self.ctx.emit(CudaError, line_no, line, error=kind, detail=m.group(0))
            return
        if "eer" in line and (m := _P2P_UNSUPPORTED.search(line)):
            self.ctx.emit(CudaError, line_no, line, error="peer_access", detail=m.group(0))
            return
        for words, kind in _CUDA:
            if words in line:
                if words.endswith(".so") and not any(miss in line for miss in _LOAD_FAILED):
                    continue   # a library named, not missing
                if kind == "lib_missing" and _NCCL_CUDA_LOOKUP in line:
                    continue   # NCCL's own dlopen of the unversioned name, not the process's CUDA (see _NCCL_CUDA_LOOKUP)
                self.ctx.emit(CudaError, line_no, line, error=kind, detail=words)
                return

    def _fault(self, n: int, line: str) -> None:
        m = _XID.search(line)
        if not m and (plugin := _PLUGIN_XID.search(line)):
            self.ctx.emit(GpuFault, n, line, fault="xid", xid=int(plugin["xid"]), bus_id=plugin["dev"])
            return
        if m:
            self.ctx.emit(GpuFault, n, line, fault="xid", xid=int(m["xid"]), bus_id=m["bus"])
            cause = _CAUSED_BY.search(line)
            if cause:   # "Xid 45 ... caused by previous Xid 149": the earlier Xid is the fault
                self.ctx.emit(GpuFault, n, line, fault="xid", xid=int(cause["xid"]), bus_id=m["bus"])
        elif "RESET_REQUIRED" in line or "Reset required" in line:
            self.ctx.emit(GpuFault, n, line, fault="reset_required")
        elif "fallen off the bus" in line:
            self.ctx.emit(GpuFault, n, line, fault="fell_off_bus")
        elif "FABRIC_STATE_OUT_OF_SYNC" in line or "fabric state cached by the driver is out of sync" in line:
            # "NVRM: nvCheckOkFailedNoLog: Check failed: NVLink fabric state cached by the driver is out of sync
            # [NV_ERR_FABRIC_STATE_OUT_OF_SYNC] (0x00000087) returned from status @ mem_multicast_fabric.c:2917": the
            # driver's copy of the NVSwitch fabric no longer matches it (Fabric Manager restarted under running GPUs):
            # every NVLink multicast (NVLS) setup fails until the GPUs and switches are reset (nvshmem#40)
            self.ctx.emit(GpuFault, n, line, fault="fabric_out_of_sync")
        elif "infoROM is corrupted" in line:
            # nvidia-smi's own check of the GPU's infoROM (its configuration and error-record storage): "WARNING:
            # infoROM is corrupted at gpu 0000:0B:00.0", exit code 14; NVIDIA's action is to replace the GPU
            self.ctx.emit(GpuFault, n, line, fault="inforom")
        elif "RmInitAdapter failed" in line or "rm_init_adapter failed" in line:
            # the driver could not bring this GPU up: what nvidia-smi then calls "No devices were found" (the narrowing
            # sign no_gpu_initialised: a driver that does not support it, the GPU itself, its firmware)
            self.ctx.emit(CudaError, n, line, error="no_gpu_found", detail="RmInitAdapter failed")
        elif "GspRmAlloc failed" in line or "_GSP" in line and "failed" in line:
            self.ctx.emit(GpuFault, n, line, fault="gsp")
        elif "ECC" in line and ("uncorrectable" in line.lower() or "DBE" in line):
            self.ctx.emit(GpuFault, n, line, fault="ecc")
