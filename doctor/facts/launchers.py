"""Facts that only other launchers and libraries report in their own words (Horovod, TensorFlow, DeepSpeed,
Lightning, accelerate, Open MPI / UCX / PMIx).

Wherever a PyTorch equivalent exists the probes emit that fact instead (a Horovod gloo connect timeout is a
net.connect_error, a TF_CONFIG error a launch.config_error); these kinds cover what has none.
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class CollectiveStall(Fact):
    """A framework's stall inspector: some ranks submitted a collective, others never did (Horovod)."""

    KIND = "collective.stalled"
    framework: str = ""            # horovod
    op: str = ""                   # allreduce | allgather | broadcast | ...
    tensor: str = ""               # the first stalled tensor named
    missing_ranks: str = ""        # "1" or "0, 2": ranks that never submitted it
    waited_s: float = -1


@fact
class RemoteLaunchError(Fact):
    """A launcher could not start processes on a host for a reason other than the network (ssh auth, host key,
    missing binary). Network failures are net.connect_error with transport ssh."""

    KIND = "launch.remote_error"
    launcher: str = ""             # pdsh | ssh | mpirun | horovodrun | deepspeed
    host: str = ""
    # auth | host_key | not_found | daemon | daemon_version (the remote daemon is another release: it rejects an option
    # mpirun passes) | wire_format (processes of two builds unpack each other's start-up data wrongly) | host_slots (a
    # host:slots reached ssh) | other
    reason: str = ""


@fact
class WorkerExit(Fact):
    """A launcher reports that a worker process exited (DeepSpeed 'exits with return code', mpirun, horovodrun)."""

    KIND = "launch.worker_exit"
    launcher: str = ""
    code: int = 0                  # exit code; negative = killed by that signal number
    signal: str = ""               # SIGKILL, SIGSEGV, ... when known


@fact
class RankAnnounce(Fact):
    """A process announcing its global rank (Lightning 'Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/8')."""

    KIND = "launch.rank_announce"
    framework: str = ""
    global_rank: int = -1
    world: int = -1
    form: str = ""                 # the line's wording without digits: the same process logging twice differs
    seq: int = 1                   # how many times this rank was announced in this wording in this input so far


@fact
class RankDuplicate(Fact):
    """Two processes (or two machines) claim the same rank (computed by aggregation)."""

    KIND = "launch.rank_duplicate"
    framework: str = ""
    global_rank: int = -1
    count: int = 0
    world: int = -1
    distinct: int = 0              # how many different ranks were announced at all


@fact
class RanksRegistered(Fact):
    """Rank 0 saw every process join ("All distributed processes registered. Starting with 8 processes")."""

    KIND = "launch.ranks_registered"
    framework: str = ""
    world: int = -1


@fact
class RanksMissing(Fact):
    """Rank 0 announced itself, fewer ranks than the world size ever did, and rank 0 never saw all of them join
    (computed by aggregation)."""

    KIND = "launch.ranks_missing"
    framework: str = ""
    world: int = -1
    announced: int = 0             # how many different ranks announced themselves


@fact
class RankBeyondWorld(Fact):
    """A process announced a global rank at or past the world size it was given ("GLOBAL_RANK: 1, MEMBER: 2/1"):
    the world size it computed is smaller than the job (computed by aggregation)."""

    KIND = "launch.rank_beyond_world"
    framework: str = ""
    global_rank: int = -1
    world: int = -1


@fact
class Hostfile(Fact):
    """What a launcher made of its hostfile (DeepSpeed: found, or 'Unable to find hostfile')."""

    KIND = "launch.hostfile"
    launcher: str = ""
    found: bool = True
    path: str = ""


@fact
class HostfileIgnored(Fact):
    """A multi-node launch fell back to local resources because the hostfile was not found (aggregation)."""

    KIND = "launch.hostfile_ignored"
    launcher: str = ""
    wanted: str = ""               # the option that asked for several nodes: "--num_nodes 2" / "--hostfile hosts"


@fact
class MpiCudaSupport(Fact):
    """Whether the MPI library can take GPU buffers (ompi_info, Open MPI's 'not compiled with any support')."""

    KIND = "mpi.cuda_support"
    built: bool = False
    requested: bool = False        # the job asked for it (mpi_cuda_support 1, HOROVOD_GPU_OPERATIONS=MPI, ...)
    source: str = ""               # ompi_info | runtime | horovod


@fact
class MpiComponentUnloadable(Fact):
    """An Open MPI plugin (mca_<framework>_<component>.so) the loader could not open for a symbol it lacks: a plugin
    of another Open MPI build beside this one (one release installed over another), or a broken build."""

    KIND = "mpi.component_unloadable"
    component: str = ""            # mca_ess_slurmd
    symbol: str = ""               # the undefined symbol, '' when the line was wrapped before it


@fact
class TaskUnregistered(Fact):
    """A task of a TensorFlow or JAX job started its gRPC server but its log never shows its coordination agent
    connecting to the coordination service (task 0), to the log's end; the task running task 0's service is not one."""

    KIND = "launch.task_unregistered"
    target: str = ""               # its own server, as TensorFlow prints it: grpc://host:port
