"""Facts about starting a job: rendezvous, stores, sockets, interfaces, rank layout."""
from __future__ import annotations


from doctor.facts.base import Fact, fact

# torch.distributed calls that form the job (the store, the rendezvous, the process groups, a communicator): a
# traceback through one of them failed, and a live stack inside one of them waits, while the job was forming
# (probes/traceback_frames.py reads the frames, doctor/judgement/context.py the stacks).
PROCESS_GROUP_SETUP = frozenset({
    "init_process_group", "new_group", "_new_process_group_helper", "new_subgroups", "init_device_mesh",
    "_init_process_groups", "_store_based_barrier", "rendezvous", "next_rendezvous", "_tcp_rendezvous_handler",
    "_env_rendezvous_handler", "_file_rendezvous_handler", "_create_c10d_store", "_rendezvous_helper",
    "init_distributed",
})

@fact
class ConnectError(Fact):
    """A connection to a peer or store failed. outcome: refused|timeout|unreachable|reset|aborted|misdirected (reached a
    process that is not the peer or store: MPI's wrong process, a store port answered by another program)|other."""

    KIND = "net.connect_error"
    host: str = ""
    port: int = -1
    outcome: str = "other"
    transport: str = "unknown"     # store | gloo | nccl | rdzv (torchrun c10d rendezvous) | horovod (horovodrun HTTP) | ray (a worker node to the head) | unknown
    loopback: bool = False         # the remote address is 127.0.0.0/8 or ::1
    link_local: bool = False       # the remote address is fe80::/10 or 169.254/16


@fact
class ProxyDenied(Fact):
    """A service-mesh sidecar (Istio's Envoy) refused a connection by its authorization policy (RBAC)."""

    KIND = "net.proxy_denied"
    proxy: str = "envoy"
    policy: str = ""               # the matched policy Envoy names ('none': no ALLOW policy matched)


@fact
class ResolveError(Fact):
    """A host name did not resolve (getaddrinfo failed)."""

    KIND = "net.resolve_error"
    host: str = ""
    port: int = -1


@fact
class BindError(Fact):
    """A server socket could not bind: the port is taken (EADDRINUSE)."""

    KIND = "net.bind_error"
    host: str = ""
    port: int = -1


@fact
class IfnameError(Fact):
    """A configured socket interface (GLOO_/NCCL_SOCKET_IFNAME) was not found or has no address."""

    KIND = "net.ifname_error"
    ifname: str = ""
    transport: str = "unknown"


@fact
class Interface(Fact):
    """A network interface a transport chose (from NCCL Bootstrap/NET/Socket lines or a live probe)."""

    KIND = "net.interface"
    name: str = ""
    address: str = ""
    used_by: str = ""              # nccl_bootstrap | nccl_socket | gloo | system
    loopback: bool = False
    link_local: bool = False
    virtual: bool = False          # docker0, veth*, virbr*, br-*, cni*, flannel*, ...


@fact
class RendezvousTimeout(Fact):
    """Waiting for peers timed out. backend: store|c10d|static|etcd|gloo|agent_roles (the elastic agents' role records)."""

    KIND = "rdzv.timeout"
    backend: str = "store"
    joined: int = -1
    expected: int = -1
    surplus: int = 0               # joined - expected when both are known: > 0 means extra processes registered
    group: int = 0                 # the store barrier's key (store_based_barrier_key:N): the Nth process group the
                                   # job creates; 0 unknown. Past 1, the default group had formed with every rank


@fact
class RendezvousEndpoint(Fact):
    """The endpoint a launcher was told to rendezvous at, checked against this host's name."""

    KIND = "rdzv.endpoint"
    host: str = ""
    port: int = -1
    backend: str = ""
    matches_hostname: bool = True   # the endpoint names this host (or an address it has)
    in_hosts_file: bool = True      # /etc/hosts or DNS output shows the name resolves
    failed: bool = False            # the same input shows the rendezvous failing (timeout, connection error)


@fact
class DeviceOrdinalError(Fact):
    """A rank asked for a GPU index that does not exist in its view (invalid device ordinal)."""

    KIND = "launch.ordinal_error"
    device: int = -1


@fact
class DuplicateGpu(Fact):
    """Two ranks of one communicator sit on the same GPU."""

    KIND = "launch.duplicate_gpu"
    rank_a: int = -1
    rank_b: int = -1
    bus_id: str = ""


@fact
class LaunchOption(Fact):
    """A launcher or scheduler option (torchrun flag, #SBATCH line, srun flag)."""

    KIND = "launch.option"
    launcher: str = ""             # torchrun | slurm | deepspeed | mpirun | accelerate
    name: str = ""
    value: str = ""


@fact
class HostName(Fact):
    """This host's name (hostname output) and whether /etc/hosts maps it to loopback."""

    KIND = "host.name"
    name: str = ""
    loopback: bool = False


@fact
class HostsEntry(Fact):
    """One name -> address entry of /etc/hosts."""

    KIND = "host.hosts_entry"
    name: str = ""
    address: str = ""
    loopback: bool = False


@fact
class LaunchConfigError(Fact):
    """The launcher or init_process_group rejected its configuration (missing env var, rank out of range...)."""

    KIND = "launch.config_error"
    what: str = ""


@fact
class SingletonRanks(Fact):
    """Several processes each said they are rank 0 of a world of 1 ("I am process 0 of 1", "task 0 of 1"): started
    together by a launcher, each ran as a job of its own. origin: the first such line."""

    KIND = "launch.singleton_ranks"
    processes: int = 0             # how many such lines


@fact
class IfnameUnused(Fact):
    """NCCL_SOCKET_IFNAME names interfaces, NCCL's init failed, and no interface NCCL reported matches the setting
    (derived: doctor/aggregate_launch.py). origin: the failure line."""

    KIND = "net.ifname_unused"
    variable: str = "NCCL_SOCKET_IFNAME"
    ifname: str = ""               # the value as set
    interfaces_seen: int = 0       # interfaces NCCL reported using in the same input (none of them match)
    failure: str = ""              # the NCCL result: internal | system | invalid_usage | handle_corrupt


@fact
class DeviceMismatch(Fact):
    """A rank works on another GPU than its local rank's: a framework's own local-rank check failed, or one
    operation met tensors on two CUDA devices; or the model's device placement conflicts with the distributed mode
    (DDP handed a module spread over several GPUs, accelerate refusing a device_map='auto' or an 8-/4-bit model on
    another GPU), or transformers refusing a device_map or low_cpu_mem_usage under ZeRO-3 (its one message names both).
    sign: local_rank_check | tensors_on_two_gpus | placement_vs_distributed | zero3_loading_option."""

    KIND = "launch.device_mismatch"
    sign: str = ""
    devices: str = ""              # "cuda:1, cuda:0" when the message names them


@fact
class BenchRanksShort(Fact):
    """An nccl-tests run whose communicator holds fewer ranks than its launcher started GPUs: mpirun -np N of a
    *_perf binary while NCCL reports nranks below N x the GPUs per process (derived: doctor/aggregate_launch.py).
    A build without MPI=1 makes each process a one-process job. origin: the launch line."""

    KIND = "bench.ranks_short"
    launched: int = -1             # mpirun's -np
    per_process: int = 1           # nGpus of the test's header (1 when not shown): the fewest ranks each process adds
    nranks: int = -1               # the largest 'nranks' NCCL printed for the test


@fact
class InitStep(Fact):
    """The last step of distributed init a framework announced in one input (probes/dist_init.py): DeepSpeed's
    init_distributed, Paddle's NCCL context, c10d's store connect retry or store barrier, vLLM's init."""

    KIND = "launch.init_step"
    framework: str = ""            # deepspeed | paddle | pytorch | vllm | lightning
    step: str = ""                 # init_distributed | nccl_context | store_connect | store_barrier | rank_announce
    detail: str = ""               # the backend, world size, store address or rank the line names


@fact
class InitStopped(Fact):
    """An input whose output ends on a step of distributed init: no line read after it, no error, no step of
    training, no benchmark figure (doctor/aggregate_launch.py). Where a job hangs, this is where; a log cut there
    reads the same (five healthy excerpts of the case base end so), so it shows no failure and names no symptom: it
    is context of the fitted weights (doctor/judgement/context.py)."""

    KIND = "launch.init_stopped"
    framework: str = ""
    step: str = ""
