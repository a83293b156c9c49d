"""The fact schema. FACT_KINDS is the one table of every kind a rule may name."""
from __future__ import annotations

from doctor.facts.base import NO_ORIGIN, Fact, Origin, field_names, field_types
from doctor.facts.cluster import (BusBandwidth, BusbwCheck, ClusterRank, JobIbSummary, NodeInfo, NodeSkew, PairBandwidth,
                                  PairReach, PcieSummary, RankTiming, RendezvousResult, SlowLink, Straggler)
from doctor.facts.collective import CollectiveMismatch, CollectiveProgress, CollectiveTimeout, PeerLost, RankLag, UnusedParameters
from doctor.facts.collective import NcclCollCall, NcclCollMismatch
from doctor.facts.fabric import (ExpectedBandwidth, GidChoice, HcaCheck, IbGid, IbPort, IbSummary, QpTimeout, RailLayout,
                                 RdmaPresent, TopoAffinity)
from doctor.facts.fabric import EndpointTimeout, RdmaNoDevice, UcxFatal
from doctor.facts.hardware import (GpuEcc, GpuFabric, GpuP2p, GpuProcess, GpuThrottle, Iommu, KernelModule, ModuleLoadFailed,
                                   ModuleSummary, PciAcs, PcieLink)
from doctor.facts.hardware import ModuleInstalled, ModuleQuery
from doctor.facts.hardware import IommuFault
from doctor.facts.hardware import GpuMemorySkew, GpuMemoryUse
from doctor.facts.flight_recorder import (FrDump, FrGroupRank, FrMismatch, InspectorRank, NativeStack, NcclCommFinding,
                                          ProcessStack, StackOutlier)
from doctor.facts.env import (ContainerDevice, EnvVar, PackageVersion, RayVersionReport, ShmShort, ShmSize, Ulimit, VersionSkew,
                              WheelConflict)
from doctor.facts.env import PackageChange
from doctor.facts.env import UcxVersionReport
from doctor.facts.gpu import BusError, CudaError, GpuDevice, GpuFault, OomEvent, TraceFrame
from doctor.facts.gpu import WorkerExited
from doctor.facts.launch import BenchRanksShort
from doctor.facts.launch import ProxyDenied
from doctor.facts.launch import InitStep, InitStopped
from doctor.facts.gpu import FabricManagerState
from doctor.facts.gpu import GpuDiagnostic
from doctor.facts.logline import ErrorLine, GpuBuffers, JobOutcome, SurvivedLine
from doctor.facts.memory import MemorySnapshot
from doctor.facts.hostconf import Firmware, FirmwareFault, FirmwareSkew, FirmwareWarning, KnownBug, MtuSkew, NetLink, RouteConflict
from doctor.facts.launch import (BindError, ConnectError, DeviceOrdinalError, DuplicateGpu, HostName, HostsEntry,
                                 DeviceMismatch, IfnameError, IfnameUnused, Interface, SingletonRanks, LaunchConfigError, LaunchOption, RendezvousEndpoint, RendezvousTimeout,
                                 ResolveError)
from doctor.facts.perf import (CollectiveAbsent, CollectiveBandwidth, GpuUtilisation, ProfilerTableRow, TraceCollectives,
                               TraceStraggler, TraceJob, TraceRank, TraceStep)
from doctor.facts.nccl import (CallFailed, DeviceLimit, GdrState, HandleCorrupt, IbEvent, IbUnavailable, NcclChannel, NcclCommRank, NcclError, NcclHca, NcclLog,
                               NcclInitUnfinished, NcclLogEnd, NcclNet,
                               NcclSummary, NcclVersion, NcclWarn)
from doctor.facts.reachability import Reachability
from doctor.facts.policy import PolicyCount, PolicyEqual, PolicyForbid, PolicyMin, PolicyPin, PolicyRequire
from doctor.facts.status import ProbeStatus
from doctor.facts.topo import (CollectiveBench, NvlinkState, P2pCopyCorrupted, P2pPairBandwidth, P2pTest, TopoLink,
                               TopoNic, TopoSummary)
from doctor.facts.train import SlowRank, TrainSteps
from doctor.facts.train import TrainSlowdown
from doctor.facts.launchers import (CollectiveStall, Hostfile, HostfileIgnored, MpiComponentUnloadable, MpiCudaSupport,
                                    RankAnnounce, RankDuplicate,
                                    RankBeyondWorld, RanksMissing, RanksRegistered, RemoteLaunchError, TaskUnregistered,
                                    WorkerExit)
from doctor.facts.measure import (BandwidthSample, BenchExpectation, BenchVerdict, CollectiveSize, CudaApiShare, GpuIdle,
                                  KernelShare, LatencySample)

_ALL: tuple[type[Fact], ...] = (
    # launch and rendezvous
    ConnectError, ResolveError, BindError, IfnameError, Interface, RendezvousTimeout, RendezvousEndpoint,
    DeviceOrdinalError, DuplicateGpu, LaunchOption, LaunchConfigError, HostName, HostsEntry, Reachability,
    IfnameUnused, DeviceMismatch, SingletonRanks,
    ProxyDenied, InitStep, InitStopped,
    # NCCL
    NcclVersion, NcclError, NcclWarn, CallFailed, NcclNet, IbUnavailable, GdrState, NcclChannel, NcclSummary,
    HandleCorrupt, NcclLog, NcclLogEnd, NcclInitUnfinished, NcclHca, IbEvent, DeviceLimit, NcclCommRank,
    # GPU and memory
    CudaError, GpuFault, OomEvent, BusError, TraceFrame, GpuDevice, MemorySnapshot,
    FabricManagerState,
    GpuDiagnostic, WorkerExited, BenchRanksShort,
    # collectives
    CollectiveTimeout, CollectiveMismatch, CollectiveProgress, PeerLost, RankLag, UnusedParameters,
    NcclCollCall, NcclCollMismatch,
    # Flight Recorder dumps and what they show across ranks
    FrDump, FrGroupRank, FrMismatch, ProcessStack, StackOutlier, NcclCommFinding, InspectorRank,
    NativeStack,
    # software and configuration
    PackageVersion, VersionSkew, EnvVar, Ulimit, ContainerDevice, ShmSize, ShmShort,
    WheelConflict,
    RayVersionReport,
    PackageChange,
    UcxVersionReport,
    # topology and measurements
    TopoLink, TopoNic, TopoSummary, NvlinkState, CollectiveBench,
    P2pCopyCorrupted, P2pPairBandwidth, P2pTest,
    # training logs
    TrainSteps, SlowRank, TrainSlowdown,
    # other launchers and libraries (Horovod, TensorFlow, DeepSpeed, Lightning, accelerate, MPI)
    CollectiveStall, RemoteLaunchError, WorkerExit, RankAnnounce, RankDuplicate, Hostfile, HostfileIgnored, MpiCudaSupport,
    MpiComponentUnloadable,
    RanksRegistered, RanksMissing, RankBeyondWorld, TaskUnregistered,
    # benchmarks, profiles, expectations and verdicts
    BenchExpectation, BandwidthSample, LatencySample, CollectiveSize, KernelShare, GpuIdle, CudaApiShare, BenchVerdict,
    # node hardware (nvidia-smi -q, NVML, lspci, kernel)
    PcieLink, GpuEcc, GpuThrottle, GpuFabric, GpuProcess, GpuP2p, KernelModule, ModuleSummary, Iommu, IommuFault, PciAcs,
    ModuleQuery, ModuleInstalled, ModuleLoadFailed,
    GpuMemoryUse, GpuMemorySkew,
    # node fabric (RDMA ports and GIDs, NCCL settings against them, rails, CPU affinity, expected bandwidth)
    IbPort, IbGid, IbSummary, HcaCheck, GidChoice, RailLayout, TopoAffinity, ExpectedBandwidth, QpTimeout,
    RdmaPresent, RdmaNoDevice,
    UcxFatal, EndpointTimeout,
    # speed: profiler traces, skew across ranks, utilisation
    TraceStep, TraceRank, TraceCollectives, TraceJob, TraceStraggler, CollectiveAbsent, CollectiveBandwidth, GpuUtilisation,
    ProfilerTableRow,
    # host configuration: MTU and subnets, firmware, known bugs of the versions in use
    NetLink, MtuSkew, RouteConflict, Firmware, FirmwareSkew, KnownBug,
    FirmwareWarning,
    FirmwareFault,
    # gathering
    ProbeStatus, ErrorLine, JobOutcome, SurvivedLine, GpuBuffers,
    # whole job (doctor cluster) and what it derives
    ClusterRank, NodeInfo, RendezvousResult, PairReach, BusBandwidth, PairBandwidth, RankTiming,
    NodeSkew, SlowLink, Straggler, BusbwCheck, PcieSummary, JobIbSummary,
    # a node policy compiled into facts (doctor check)
    PolicyMin, PolicyCount, PolicyRequire, PolicyPin, PolicyEqual, PolicyForbid,
)

FACT_KINDS: dict[str, type[Fact]] = {cls.KIND: cls for cls in _ALL}
if len(FACT_KINDS) != len(_ALL):   # two classes with one KIND: the later would silently shadow the earlier
    _seen = [cls.KIND for cls in _ALL]
    raise ValueError(f"fact kinds registered twice: {sorted({k for k in _seen if _seen.count(k) > 1})}")


def register(cls: type[Fact]) -> type[Fact]:
    """Add a fact kind (used by modules that extend the schema, e.g. traces)."""
    if cls.KIND in FACT_KINDS and FACT_KINDS[cls.KIND] is not cls:
        raise ValueError(f"fact kind {cls.KIND!r} is already registered")
    FACT_KINDS[cls.KIND] = cls
    return cls


__all__ = ["FACT_KINDS", "Fact", "NO_ORIGIN", "Origin", "field_names", "field_types", "register"]
