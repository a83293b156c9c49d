"""The probe registry: every parser doctor has, in one visible table.

LINE_PROBES read logs line by line (only lines holding one of their triggers);
DOCUMENT_PROBES read whole artifacts they recognise by content.
"""
from __future__ import annotations

from doctor.probing.contract import DocumentProbe, LineProbe
from probes.accelerate import Accelerate
from probes.collectives import Collectives
from probes.container_spec import ContainerSpec
from probes.cuda_errors import CudaErrors
from probes.deepspeed import DeepSpeed
from probes.env_vars import EnvVars
from probes.expectations import Expectations
from probes.host_config import HostConfig
from probes.horovod import Horovod
from probes.iperf3 import Iperf3Json, Iperf3Text
from probes.launch_command import LaunchCommand
from probes.launch_errors import LaunchErrors
from probes.lightning import Lightning
from probes.limits import MemlockLines, MemlockValue
from probes.nccl_errors import NcclErrors
from probes.nccl_log import NcclLogProbe
from probes.nccl_tests import NcclTests
from probes.nccl_tests_json import NcclTestsJson
from probes.nsys_stats import NsysStats
from probes.nvlink_status import NvlinkStatus
from probes.oom import OomMessages
from probes.openmpi import OpenMpi
from probes.perftest import Perftest
from probes.remote_shell import RemoteShell
from probes.tensorflow import TensorFlow
from probes.topo_matrix import TopoMatrix
from probes.traceback_frames import TracebackFrames
from probes.train_log import TrainLog
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
    TrainLog,           # per-step timings of training logs
    Iperf3Text,         # iperf3 text output: the throughput that arrived
    RemoteShell,        # ssh / pdsh as launchers use them: unreachable hosts, refused keys
    OpenMpi,            # mpirun / ORTE / UCX / PMIx wording, --mca settings, CUDA-aware or not
    Horovod,            # horovodrun, gloo rendezvous and pairs, shutdowns, stalled ranks
    TensorFlow,         # TF_CONFIG, gRPC UNAVAILABLE, collective aborts and timeouts
    DeepSpeed,          # hostfile, ssh check, 'exits with return code'
    Lightning,          # GLOBAL_RANK announcements, device and SLURM misconfiguration
    Accelerate,         # `accelerate env` versions and config options
)

DOCUMENT_PROBES: tuple[type[DocumentProbe], ...] = (
    TopoMatrix,         # nvidia-smi topo -m
    NvlinkStatus,       # nvidia-smi nvlink -s
    HostConfig,         # shell transcripts, /etc/hosts
    MemlockValue,       # bare `ulimit -l` answer
    Iperf3Json,         # iperf3 --json
    Perftest,           # ib_write_bw / ib_read_bw / ib_*_lat, host or --use_cuda buffers
    NcclTestsJson,      # nccl-tests -J output
    NsysStats,          # nsys stats --format csv: kernel, API and GPU trace reports
    Expectations,       # what links and collectives should measure (link_gbps: 10, ...)
)

__all__ = ["DOCUMENT_PROBES", "LINE_PROBES"]
