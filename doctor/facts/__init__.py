"""The fact schema. FACT_KINDS is the one table of every kind a rule may name."""
from __future__ import annotations

from doctor.facts.base import NO_ORIGIN, Fact, Origin, field_names, field_types
from doctor.facts.collective import CollectiveMismatch, CollectiveProgress, CollectiveTimeout, PeerLost, RankLag, UnusedParameters
from doctor.facts.env import ContainerDevice, EnvVar, PackageVersion, ShmSize, Ulimit, VersionSkew
from doctor.facts.gpu import BusError, CudaError, GpuDevice, GpuFault, OomEvent, TraceFrame
from doctor.facts.memory import MemorySnapshot
from doctor.facts.launch import (BindError, ConnectError, DeviceOrdinalError, DuplicateGpu, HostName, HostsEntry,
                                 IfnameError, Interface, LaunchConfigError, LaunchOption, RendezvousEndpoint, RendezvousTimeout,
                                 ResolveError)
from doctor.facts.perf import (CollectiveAbsent, CollectiveBandwidth, GpuUtilisation, Straggler, TraceCollectives,
                               TraceJob, TraceRank, TraceStep)
from doctor.facts.nccl import (CallFailed, GdrState, HandleCorrupt, IbUnavailable, NcclChannel, NcclError, NcclLog, NcclNet,
                               NcclSummary, NcclVersion, NcclWarn)
from doctor.facts.status import ProbeStatus
from doctor.facts.topo import CollectiveBench, NvlinkState, TopoLink, TopoSummary

_ALL: tuple[type[Fact], ...] = (
    # launch and rendezvous
    ConnectError, ResolveError, BindError, IfnameError, Interface, RendezvousTimeout, RendezvousEndpoint,
    DeviceOrdinalError, DuplicateGpu, LaunchOption, LaunchConfigError, HostName, HostsEntry,
    # NCCL
    NcclVersion, NcclError, NcclWarn, CallFailed, NcclNet, IbUnavailable, GdrState, NcclChannel, NcclSummary,
    HandleCorrupt, NcclLog,
    # GPU and memory
    CudaError, GpuFault, OomEvent, BusError, TraceFrame, GpuDevice, MemorySnapshot,
    # collectives
    CollectiveTimeout, CollectiveMismatch, CollectiveProgress, PeerLost, RankLag, UnusedParameters,
    # software and configuration
    PackageVersion, VersionSkew, EnvVar, Ulimit, ContainerDevice, ShmSize,
    # topology and measurements
    TopoLink, TopoSummary, NvlinkState, CollectiveBench,
    # speed: profiler traces, skew across ranks, utilisation
    TraceStep, TraceRank, TraceCollectives, TraceJob, Straggler, CollectiveAbsent, CollectiveBandwidth, GpuUtilisation,
    # gathering
    ProbeStatus,
)

FACT_KINDS: dict[str, type[Fact]] = {cls.KIND: cls for cls in _ALL}


def register(cls: type[Fact]) -> type[Fact]:
    """Add a fact kind (used by modules that extend the schema, e.g. traces)."""
    if cls.KIND in FACT_KINDS and FACT_KINDS[cls.KIND] is not cls:
        raise ValueError(f"fact kind {cls.KIND!r} is already registered")
    FACT_KINDS[cls.KIND] = cls
    return cls


__all__ = ["FACT_KINDS", "Fact", "NO_ORIGIN", "Origin", "field_names", "field_types", "register"]
