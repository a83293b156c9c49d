"""The probe registry: every parser doctor has, in one visible table.

LINE_PROBES read logs line by line (only lines holding one of their triggers);
DOCUMENT_PROBES read whole artifacts they recognise by content;
STREAM_PROBES read large or binary artifacts (profiler traces, memory snapshots) from the file as a stream.
"""
from __future__ import annotations

from doctor.probing.contract import DocumentProbe, LineProbe
from doctor.probing.stream import StreamProbe
from probes.collectives import Collectives
from probes.container_spec import ContainerSpec
from probes.cuda_errors import CudaErrors
from probes.env_vars import EnvVars
from probes.gpu_utilisation import DmonLog, QueryGpuCsv
from probes.host_config import HostConfig
from probes.kineto_trace import KinetoTrace
from probes.launch_command import LaunchCommand
from probes.launch_errors import LaunchErrors
from probes.limits import MemlockLines, MemlockValue
from probes.memory_snapshot import MemorySnapshotProbe
from probes.nccl_errors import NcclErrors
from probes.nccl_log import NcclLogProbe
from probes.nccl_tests import NcclTests
from probes.nvlink_status import NvlinkStatus
from probes.oom import OomMessages
from probes.topo_matrix import TopoMatrix
from probes.traceback_frames import TracebackFrames
from probes.versions import Versions

LINE_PROBES: tuple[type[LineProbe], ...] = (
    LaunchErrors,       # rendezvous, store, gloo/NCCL socket connects, bind, resolve, ranks/devices
    NcclLogProbe,       # NCCL_DEBUG INFO: version, net, interfaces, GDR, channels
    NcclErrors,         # NCCL result codes, WARN lines, failed shm/ibv calls
    CudaErrors,         # CUDA errors, NVRM/Xid faults, DataLoader bus errors
    OomMessages,        # CUDA OOM messages of every wording
    Collectives,        # watchdog, gloo timeouts, desync, lost peers
    TracebackFrames,    # what the program was doing
    EnvVars,            # NCCL_*/GLOO_*/TORCH_*/MASTER_* settings
    Versions,           # pip/conda/collect_env/driver versions
    LaunchCommand,      # torchrun/srun/#SBATCH options
    ContainerSpec,      # devices and capabilities given to a container
    NcclTests,          # nccl-tests output
    MemlockLines,       # ulimit -a
)

DOCUMENT_PROBES: tuple[type[DocumentProbe], ...] = (
    TopoMatrix,         # nvidia-smi topo -m
    NvlinkStatus,       # nvidia-smi nvlink -s
    HostConfig,         # shell transcripts, /etc/hosts
    MemlockValue,       # bare `ulimit -l` answer
    DmonLog,            # nvidia-smi dmon utilisation logs
    QueryGpuCsv,        # nvidia-smi --query-gpu=utilization.gpu,... --format=csv logs (and the NVML sampler's)
)

STREAM_PROBES: tuple[type[StreamProbe], ...] = (
    KinetoTrace,        # torch.profiler / Kineto chrome traces (.json, .json.gz), streamed
    MemorySnapshotProbe,  # torch.cuda.memory._dump_snapshot pickles, read without pickle.load
)

__all__ = ["DOCUMENT_PROBES", "LINE_PROBES", "STREAM_PROBES"]
