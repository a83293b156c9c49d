"""The probe registry: every parser doctor has, in one visible table.

LINE_PROBES read logs line by line (only lines holding one of their triggers);
DOCUMENT_PROBES read whole artifacts they recognise by content;
STREAM_PROBES read large or binary artifacts (profiler traces, memory snapshots) from the file as a stream;
LIVE_PROBES say how `doctor scan` / `doctor collect` gather each artifact on a node, and which parser of the
two tables above reads it, so the live path and the upload path share one parser per artifact.
"""
from __future__ import annotations

from doctor.probing.contract import DocumentProbe, LineProbe
from doctor.probing.live import LiveProbe, reader
from doctor.probing.stream import StreamProbe
from probes.accelerate import Accelerate
from probes.apt_history import AptHistory
from probes.acs_registers import AcsRegisters
from probes.rdma_topo import RdmaTopo
from probes.collectives import Collectives
from probes.nccl_coll import NcclCollLines
from probes.container_spec import ContainerSpec
from probes.cuda_errors import CudaErrors
from probes.dcgm_diag import DcgmDiag
from probes.dcgm_diag_json import DcgmDiagJson
from probes.fabric_manager import FabricManagerLines
from probes.deepspeed import DeepSpeed
from probes.serving_launchers import ServingLaunchers
from probes.dev_shm import ShmLines
from probes.env_vars import EnvVars
from probes.ethtool_info import EthtoolInfo
from probes.error_lines import NOTHING_HERE, ErrorLines
from probes.gpu_buffers import GpuBufferSigns
from probes.job_outcome import JobOutcomes
from probes.expectations import Expectations
from probes.flight_recorder import FlightRecorderDump
from probes.gpu_utilisation import DmonLog, QueryGpuCsv
from probes.horovod import Horovod
from probes.host_config import HostConfig
from probes.ib_devinfo import IbvDevinfo
from probes.show_gids import ShowGids
from probes.ib_status import IbStatus
from probes.iommu import IommuLines
from probes.iperf3 import Iperf3Json, Iperf3Text
from probes.job_facts import JobFacts
from probes.kernel_modules import KernelModules
from probes.module_load_errors import ModuleLoadErrors
from probes.kineto_trace import KinetoTrace
from probes.launch_command import LaunchCommand
from probes.launch_errors import LaunchErrors
from probes.lightning import Lightning
from probes.limits import MemlockLines, MemlockValue
from probes.rdma_absent import RdmaAbsent
from probes.rdma_alloc import RdmaAllocErrors
from probes.rdma_devx import RdmaDevxErrors
from probes.ucx_fatal import UcxFatalLines
from probes.mesh_proxy import MeshProxyDenials
from probes.driver_firmware import DriverFirmwareLines
from probes.megatron_log import MegatronLog
from probes.lspci import Lspci
from probes.memory_snapshot import MemorySnapshotProbe
from probes.module_queries import ModuleQueries
from probes.nccl_errors import NcclErrors
from probes.rdma_registration import RdmaRegistration
from probes.rdma_qp_setup import RdmaQpSetup
from probes.openib_btl import OpenibBtl
from probes.singleton_ranks import SingletonRankLines
from probes.mpi_components import MpiComponents
from probes.nccl_inspector import NcclInspector
from probes.nccl_ras import NcclRasJson, NcclRasText
from probes.nccl_comm_ranks import NcclCommRanks
from probes.nccl_log import NcclLogProbe
from probes.native_stack import NativeStacks
from probes.profiler_table import ProfilerTable
from probes.lightning_profiler import LightningProfiler
from probes.nccl_tests import NcclTests
from probes.nccl_tests_json import NcclTestsJson
from probes.net_interfaces import NetInterfaces
from probes.nsys_stats import NsysStats
from probes.nvidia_smi_query import NvidiaSmiQuery
from probes.nvidia_smi_table import NvidiaSmiTable
from probes.gpu_models import GpuModels
from probes.dist_init import DistInit
from probes.nvlink_status import NvlinkStatus
from probes.nvml import NvmlReadings
from probes.oom import OomMessages
from probes.open_files import OpenFiles
from probes.openmpi import OpenMpi
from probes.tensor_copies import TensorCopies
from probes.p2p_bandwidth import P2pBandwidthTest
from probes.pcie_kernel import PcieKernelLines
from probes.perftest import Perftest
from probes.osu_benchmarks import OsuBenchmarks
from probes.pyspy_dump import PySpyJson, PySpyText
from probes.python_shm import PythonShmObjects
from probes.inference_shm import InferenceServerShm
from probes.ray_version import RayVersions
from probes.ucx_version import UcxVersions
from probes.rdma_link import RdmaLink
from probes.ibdev2netdev import Ibdev2netdev
from probes.reachability import ReachabilityReport
from probes.remote_shell import RemoteShell
from probes.tensorflow import TensorFlow
from probes.hccl import Hccl
from probes.topo_matrix import TopoMatrix
from probes.pip_list import PipList
from probes.traceback_frames import TracebackFrames
from probes.train_log import TrainLog
from probes.versions import Versions

LINE_PROBES: tuple[type[LineProbe], ...] = (
    LaunchErrors,       # rendezvous, store, gloo/NCCL socket connects, bind, resolve, ranks/devices
    Hccl,               # Ascend HCCL's port bound, HCCL_SOCKET_IFNAME missing, heartbeat lost
    NcclLogProbe,       # NCCL_DEBUG INFO: version, net, interfaces, GDR, channels
    NcclCommRanks,      # NCCL's communicator-init lines: rank, communicator, GPU bus id
    NcclErrors,         # NCCL result codes, WARN lines, failed shm/ibv calls
    RdmaRegistration,   # ibv_reg_mr failures as UCX, NVSHMEM and perftest word them
    RdmaQpSetup,        # queue-pair RTR / GID failures as perftest and Mooncake word them
    OpenibBtl,          # Open MPI's openib BTL: HCA events (IBV_EVENT_PORT_ERR), failed work completions (status 12)
    MpiComponents,      # Open MPI plugins that cannot load for an undefined symbol (another build's components)
    RdmaAbsent,         # ibstatus found no RDMA device in the OS
    CudaErrors,         # CUDA errors, NVRM/Xid faults, DataLoader bus errors
    DcgmDiag,           # dcgmi diag: the tests that failed a GPU
    FabricManagerLines,  # NVSwitch Fabric Manager: service failed, or its version differs from the driver's
    OomMessages,        # CUDA OOM messages of every wording
    NvidiaSmiTable,     # the default nvidia-smi table: memory used per GPU, listed processes
    Collectives,        # watchdog, gloo timeouts, desync, lost peers
    NcclCollLines,      # NCCL_DEBUG_SUBSYS=COLL: each process's last collective calls, by opCount
    TracebackFrames,    # what the program was doing
    NativeStacks,       # gdb backtraces: the innermost CUDA/NCCL call a process waits in
    EnvVars,            # NCCL_*/GLOO_*/TORCH_*/MASTER_* settings
    Versions,           # pip/conda/collect_env/driver versions
    GpuModels,          # GPU models as collect_env, nvidia-smi -L and Lightning's report name them
    LaunchCommand,      # torchrun/srun/#SBATCH options
    ContainerSpec,      # devices and capabilities given to a container
    NcclTests,          # nccl-tests output
    ProfilerTable,      # torch.profiler's printed key_averages() table: the DataLoader's share
    LightningProfiler,  # PyTorch Lightning's SimpleProfiler report: train_dataloader_next's share
    MemlockLines,       # ulimit -a
    RdmaAllocErrors,    # UCX / Open MPI / libfabric: verbs objects not created, ENOMEM
    RdmaDevxErrors,     # mlx5dv_devx_* 'Protocol not supported': the kernel lacks the DEVX method user space asks for
    UcxFatalLines,      # UCX transports' fatal lines: ud_iface.c ... Fatal: transport error: Endpoint timeout
    DriverFirmwareLines,  # dmesg: a NIC driver asks for newer firmware
    ModuleLoadErrors,   # modprobe/insmod 'could not insert', the kernel's 'disagrees about version of symbol'
    OpenFiles,          # ulimit -n / open files (-n), EMFILE 'Too many open files'
    TrainLog,           # per-step timings of training logs
    MegatronLog,        # Megatron iteration lines: a step time that rose mid-run and stayed
    Iperf3Text,         # iperf3 text output: the throughput that arrived
    RemoteShell,        # ssh / pdsh as launchers use them: unreachable hosts, refused keys
    OpenMpi,            # mpirun / ORTE / UCX / PMIx wording, --mca settings, CUDA-aware or not
    SingletonRankLines,  # several processes each 'rank 0 of 1': launched together, never one job
    Horovod,            # horovodrun, gloo rendezvous and pairs, shutdowns, stalled ranks
    TensorFlow,         # TF_CONFIG, gRPC UNAVAILABLE, collective aborts and timeouts
    DeepSpeed,          # hostfile, ssh check, 'exits with return code'
    ServingLaunchers,   # text-generation-inference: 'Shard process was signaled to shutdown with signal 7'
    Lightning,          # GLOBAL_RANK announcements, device and SLURM misconfiguration
    DistInit,           # DeepSpeed / Paddle / c10d / vLLM init steps; XLA's rendezvous that may be stuck
    Accelerate,         # `accelerate env` versions and config options
    RayVersions,        # Ray's version check: cluster vs this process (Ray, Python, Cloudpickle)
    UcxVersions,        # UCX: built for a newer UCP API than the libucp loaded; a peer's address from another release
    ShmLines,           # df / ls -ld / mount lines for /dev/shm
    PythonShmObjects,   # Python's /dev/shm segments and semaphores found gone ('/psm_*' opened, '/mp-*' at exit)
    InferenceServerShm, # Triton's server unable to open the shared-memory region its client made
    TensorCopies,       # a tensor printed on one GPU, then zeros on another: a peer copy that lost its data
    IommuLines,         # kernel command line and boot log: IOMMU translating or passthrough
    PcieKernelLines,    # kernel: "available PCIe bandwidth, limited by ..."
    MeshProxyDenials,   # Istio/Envoy sidecars refusing a connection by policy (rbac_access_denied)
    ErrorLines,         # error-looking lines of any origin: the report lists those no rule explained
    JobOutcomes,        # a run's own record of how it ended (MLPerf's run_stop status)
    GpuBufferSigns,     # GPU memory handed to MPI, UCX or NIXL (OSU -d cuda, ucx_perftest -m cuda, NIXL VRAM)
)

DOCUMENT_PROBES: tuple[type[DocumentProbe], ...] = (
    TopoMatrix,         # nvidia-smi topo -m
    NvlinkStatus,       # nvidia-smi nvlink -s
    HostConfig,         # shell transcripts, /etc/hosts
    MemlockValue,       # bare `ulimit -l` answer
    Iperf3Json,         # iperf3 --json
    Perftest,           # ib_write_bw / ib_read_bw / ib_*_lat, host or --use_cuda buffers
    OsuBenchmarks,      # osu_bw / osu_bibw / osu_latency tables, host or GPU buffers
    NcclTestsJson,      # nccl-tests -J output
    DcgmDiagJson,       # dcgmi diag -j: the tests that failed a GPU
    NsysStats,          # nsys stats --format csv: kernel, API and GPU trace reports
    Expectations,       # what links and collectives should measure (link_gbps: 10, ...)
    NvidiaSmiQuery,     # nvidia-smi -q: PCIe link, clocks event reasons, ECC, remapping, fabric, processes
    NvmlReadings,       # NVML readings saved as JSON by the live reader
    IbvDevinfo,         # ibv_devinfo [-v]: ports, link layer, GIDs
    ShowGids,           # show_gids: every GID row with its IPv4 address and RoCE version
    IbStatus,           # ibstat / ibstatus
    EthtoolInfo,        # ethtool -i: adapter driver and firmware
    RdmaLink,           # rdma link
    Ibdev2netdev,       # ibdev2netdev: RDMA port ==> netdev (Up|Down)
    KernelModules,      # /proc/modules, lsmod
    ModuleQueries,      # `lsmod | grep <pattern>` and `modinfo <module>` transcripts: peer-memory module loaded or not
    AptHistory,         # /var/log/apt/history.log: GPU-stack and kernel packages changed, by which command
    Lspci,              # lspci -vvv: LnkCap/LnkSta, ACSCtl
    AcsRegisters,       # setpci reads of the ACS Control register (PLX f2a.w, ECAP_ACS+6.w, NCCL's acs script)
    RdmaTopo,           # NVIDIA rdma_topo check: FAIL / OK verdicts on each bridge's ACS setting
    NetInterfaces,      # ip -j addr / ip addr
    ReachabilityReport, # MASTER_ADDR:MASTER_PORT and peers, resolution and TCP connect
    DmonLog,            # nvidia-smi dmon utilisation logs
    NcclRasText,        # ncclras: communicators with missing, dead or lagging ranks
    NcclRasJson,        # ncclras -f json
    NcclInspector,      # NCCL Inspector JSON lines, one file per rank
    PySpyText,          # py-spy dump: where each rank's main thread stands
    PySpyJson,          # py-spy dump --json
    QueryGpuCsv,        # nvidia-smi --query-gpu=utilization.gpu,... --format=csv logs (and the NVML sampler's)
    P2pBandwidthTest,   # CUDA sample p2pBandwidthLatencyTest: peer access, staged vs direct copy bandwidth
    PipList,            # pip list tables: package versions (nvidia-nccl-cu12 2.25.1)
)

STREAM_PROBES: tuple[type[StreamProbe], ...] = (
    FlightRecorderDump,  # PyTorch Flight Recorder dumps (pickle or JSON), before the memory snapshot's any-pickle
    KinetoTrace,        # torch.profiler / Kineto chrome traces (.json, .json.gz), streamed
    MemorySnapshotProbe,  # torch.cuda.memory._dump_snapshot pickles, read without pickle.load
    JobFacts,           # doctor cluster --save-facts: every rank's facts of a job, read back offline (alone)
)

# How a node gathers each artifact (doctor scan, doctor collect). parser: the DocumentProbe applied to the
# output whatever its content looks like; every output also goes through the sniffing DOCUMENT_PROBES and
# all LINE_PROBES, exactly as an uploaded file does.
LIVE_PROBES: tuple[LiveProbe, ...] = (
    LiveProbe("nvidia_smi_topo", ("nvidia-smi", "topo", "-m"), "topo_matrix", 15, gpu=True),
    LiveProbe("nvidia_smi_query", ("nvidia-smi", "-q"), "nvidia_smi_query", 20, gpu=True),
    LiveProbe("nvlink_status", ("nvidia-smi", "nvlink", "-s"), "nvlink_status", 15, gpu=True),
    LiveProbe("nvml", reader("probes.nvml_read:read_live"), "nvml", 20, gpu=True, about="NVML (nvidia-ml-py)"),
    LiveProbe("gpu_utilisation", reader("probes.nvml_sampler:read_live", "3"), "nvidia_smi_query_gpu", 15, gpu=True,
              about="GPU utilisation sampled for 3 s (NVML)"),
    LiveProbe("ibv_devinfo", ("ibv_devinfo", "-v"), "ibv_devinfo", 10, skip_when=("No IB devices found",)),
    LiveProbe("ibstat", ("ibstat",), "ibstat", 10, skip_when=("No IB devices", "umad_get_cas_names")),
    LiveProbe("rdma_link", ("rdma", "link", "show"), "rdma_link", 10, skip_when=(NOTHING_HERE["rdma_link"],)),
    LiveProbe("kernel_log", ("dmesg",), "", 15, fallbacks=(("journalctl", "-k", "-b", "--no-pager", "-q"),)),
    LiveProbe("kernel_cmdline", ("cat", "/proc/cmdline"), "", 5),
    LiveProbe("kernel_modules", ("cat", "/proc/modules"), "kernel_modules", 5, skip_when=("No such file or directory",)),
    LiveProbe("lspci", ("lspci", "-vvv"), "lspci", 20),
    LiveProbe("dev_shm", ("sh", "-c", "df -k /dev/shm; ls -ld /dev/shm"), "", 5),
    LiveProbe("memlock", ("sh", "-c", "ulimit -l"), "memlock_value", 5),
    LiveProbe("open_files", ("sh", "-c", "ulimit -a | grep -iE 'open files|nofiles'"), "", 5),
    LiveProbe("ethtool", ("sh", "-c", "command -v ethtool >/dev/null || { echo 'ethtool: not found' >&2; exit 127; }; "
                                      "for n in /sys/class/net/*; do ethtool -i ${n##*/} 2>/dev/null; done"), "ethtool_info", 10,
              skip_when=("ethtool: not found",)),
    LiveProbe("net_interfaces", ("ip", "-j", "-p", "addr", "show"), "net_interfaces", 5,
              fallbacks=(reader("probes.net_interfaces:read_live"),)),
    LiveProbe("reachability", reader("probes.reachability:read_live"), "reachability", 15,
              about="TCP connect to MASTER_ADDR:MASTER_PORT and peers"),
    LiveProbe("versions", reader("probes.node_versions:read_live"), "", 30, about="torch/CUDA/NCCL/driver versions"),
    LiveProbe("environment", reader("probes.environment:read_live"), "", 5, about="environment (secrets redacted)"),
)

__all__ = ["DOCUMENT_PROBES", "LINE_PROBES", "LIVE_PROBES", "STREAM_PROBES"]
