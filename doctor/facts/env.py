"""Facts about software and configuration: versions, environment variables, limits, containers."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class PackageVersion(Fact):
    """A package/library version as one node reports it (pip, conda, collect_env, a log line)."""

    KIND = "pkg.version"
    name: str = ""                 # normalised: torch, nccl, cuda, driver, nvidia-nccl-cu12, ...
    version: str = ""
    version_num: int = 0


@fact
class PackageChange(Fact):
    """A package the system's package manager upgraded, installed or removed (apt's history.log), for the GPU stack
    and the kernel only: what changed under a running driver."""

    KIND = "pkg.change"
    name: str = ""                 # the package as apt names it, architecture dropped: libnvidia-common-460
    action: str = ""               # upgrade | install | remove | purge | downgrade
    old: str = ""                  # version before ("" for an install)
    new: str = ""                  # version after ("" for a removal)
    command: str = ""              # apt's Commandline: /usr/bin/unattended-upgrade, apt-get upgrade, ...
    date: str = ""                 # apt's Start-Date


@fact
class VersionSkew(Fact):
    """The same package has different versions on different nodes (computed by aggregation)."""

    KIND = "version.skew"
    name: str = ""
    versions: str = ""             # "2.19.3 (3 nodes), 2.20.5 (1 node)"
    count: int = 0


@fact
class RayVersionReport(Fact):
    """Ray's own version check: a component the cluster was started with differs from this process's (Ray, Python,
    Cloudpickle), as Ray prints it in "Version mismatch: The cluster was started with: ... This process on node N
    was started with: ...". process_node: the node Ray names for this process."""

    KIND = "ray.version_mismatch"
    component: str = ""            # Ray | Python | Cloudpickle
    cluster: str = ""              # the version the cluster was started with
    process: str = ""              # the version this process runs
    process_node: str = ""         # "This process on node <this>" (an address, as Ray prints it)


@fact
class UcxVersionReport(Fact):
    """UCX's own statement that two UCX versions meet: the program was built for a newer UCP API than the libucp it
    loaded ("UCP API version is incompatible: required >= 1.20, actual 1.18.0"), or a worker address packed by one
    UCX release was unpacked by another ("address version mismatch: expected 0, actual 12")."""

    KIND = "ucx.version_mismatch"
    what: str = ""                 # api | address
    required: str = ""             # api: the UCP API the program was built for; address: the version this UCX expects
    actual: str = ""               # the version loaded (api) or found in the peer's address (address)
    library: str = ""              # "loaded from <path>", where UCX prints it


@fact
class EnvVar(Fact):
    """An environment variable as set for the job (env dump, NCCL's 'set by environment' lines, a pod spec)."""

    KIND = "env.var"
    name: str = ""
    value: str = ""
    source: str = ""               # environ | nccl_log | pod_spec | command | plugin (a net plugin's own default)


@fact
class Ulimit(Fact):
    """A resource limit; kb=-1 means unlimited."""

    KIND = "sys.ulimit"
    name: str = ""                 # memlock
    kb: int = -1
    warned: bool = False           # the RDMA library itself warned that the limit is too low


@fact
class ContainerDevice(Fact):
    """A device or capability a container spec gives the job (/dev/infiniband, IPC_LOCK, hostIPC...)."""

    KIND = "container.device"
    name: str = ""


@fact
class ShmSize(Fact):
    """/dev/shm size in bytes and whether it is writable."""

    KIND = "sys.shm"
    size: float = -1
    writable: bool = True


@fact
class ShmShort(Fact):
    """A program says /dev/shm cannot hold what it needs (Ray's object store, Triton's Python backend regions)."""

    KIND = "sys.shm_short"
    program: str = ""
    available: float = -1          # bytes, -1 when the message does not say
    refused: bool = False          # the program would not start (else it went on, slower: Ray's store in /tmp)


@fact
class WheelConflict(Fact):
    """One NVIDIA wheel installed for several CUDA majors in one environment (derived: doctor/aggregate_launch.py)."""

    KIND = "pkg.wheel_conflict"
    package: str = ""              # nvidia-nccl, nvidia-cublas, ...
    variants: str = ""             # "nvidia-nccl-cu12==2.29.3, nvidia-nccl-cu13==2.29.7"
    count: int = 0
