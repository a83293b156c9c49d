"""The scenario table: every incident the lab can record, and how it is produced.

Each :class:`Scenario` names the ground-truth cause (an id of the shared
taxonomy), the symptom a user would report, what is injected, and the
processes to start (:class:`Proc`): which node (network namespace) each runs
on, its environment, its command line, and the log file its merged
stdout/stderr goes to. ``nodes == 0`` means the host's own namespace on
loopback (a free port is picked at run time); ``nodes >= 1`` builds that many
namespaces (see :mod:`lab.netns`), where MASTER_PORT is the usual 29500.

Placeholders in argv/env: ``{python}`` (this interpreter), ``{port}``,
``{port2}`` (another free port), ``{addr0}`` (node0's address, or 127.0.0.1).

What happens with torch 2.13 (gloo, CPU), as recorded; these shape the labels:

* A refused store connection and a dropped one read the same at the default
  log level ("The client socket has timed out after ...ms while trying to
  connect to (host, port)"); the refused one retries ("retrying (try=0 ...")
  and only TORCH_DISTRIBUTED_DEBUG=DETAIL + TORCH_CPP_LOG_LEVEL=INFO prints
  "is not yet listening (errno: 111 - Connection refused)". Hence the
  ``-debug`` variant, and ``port_blocked`` as also acceptable.
* A hostname on 127.0.1.1 (Debian's /etc/hosts) makes gloo bind and advertise
  127.0.1.1: the peer gets "Connection refused, remote=[127.0.1.1]" in
  connectFullMesh while rank 0 waits 30 s (gloo's fixed connect timeout,
  not the process-group timeout) for "Connect timeout [none]".
* ``--master-addr localhost`` on two nodes: on the worker it dials its own
  loopback and times out ("trying to connect to (localhost, 29500)"); on the
  master it is harmless, the store listens on every interface and a worker
  given the master's address joins (torchrun-master-localhost-netns trains).
* Without TORCH_DISTRIBUTED_DEBUG, a skipped collective is a plain gloo
  "Timed out waiting ...ms for recv operation"; with DETAIL it is the
  "Detected mismatch between collectives on ranks" report.

Dropped: a rate-limited link (tc tbf) as its own incident. Tried with node1
shaped to 20mbit and a 4 MB all_reduce: both ranks log the same
``comm=1.68s`` per step and no error, so no rank stands out and the logs name
nothing a taxonomy label could be checked against. The helper stays in
:mod:`lab.netns` (``Cluster.rate_limit``) for live probes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

CAUSES: frozenset[str] = frozenset({
    "healthy", "port_blocked", "master_addr_wrong", "port_in_use", "wrong_socket_ifname",
    "version_mismatch", "rank_config_error", "collective_desync", "straggler", "route_conflict",
})
SYMPTOMS: frozenset[str] = frozenset({"none", "init_timeout", "hang", "crash", "slow_training"})
WORKER: tuple[str, ...] = ("{python}", "-m", "lab.worker")
LAUNCHER: tuple[str, ...] = ("{python}", "-m", "torch.distributed.run")
ACCELERATE: tuple[str, ...] = ("{python}", "-m", "accelerate.commands.launch", "--multi_gpu", "--num_machines", "2",
                               "--num_processes", "2", "--main_process_ip", "{addr0}", "--main_process_port", "{port}",
                               "--rdzv_conf", "timeout=8")


@dataclass(frozen=True)
class Proc:
    """One process of a scenario."""

    log: str                      # file its stdout+stderr go to
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    node: int | None = None       # namespace node index; None = host namespace
    delay: float = 0.0            # seconds after the scenario starts


@dataclass(frozen=True)
class Scenario:
    name: str
    cause: str
    symptom: str
    description: str
    procs: tuple[Proc, ...]
    also_acceptable: tuple[str, ...] = ()
    nodes: int = 0
    expect: tuple[str, ...] = ()  # regexes each matching some line of the recorded logs
    hostname_to_loopback: bool = False
    ifnames: dict[int, str] = field(default_factory=dict)
    drop_port: tuple[int, int] | None = None  # (on node, from node): DROP MASTER_PORT
    shadow_nic: int | None = None  # node given a second NIC in the subnet whose route wins (its `ip addr`,
    # `ip route` are saved as <node>-ip-addr.txt, <node>-ip-route.txt: what a user uploads beside the logs)
    deadline: float = 45.0        # hard stop for every process (s)
    needs: tuple[str, ...] = ()   # libraries off the venv, on PYTHONPATH as {<name>_path} (lab/record.py LIBRARY_PATHS)


def env(rank: int, world: int, **extra: str) -> dict[str, str]:
    return {"MASTER_ADDR": "{addr0}", "MASTER_PORT": "{port}", "WORLD_SIZE": str(world),
            "RANK": str(rank), **extra}


def ranks(world: int, *args: str, started: int | None = None, netns: bool = False,
          **extra: str) -> tuple[Proc, ...]:
    """Worker processes for ranks 0..started-1 of a ``world``-rank job."""
    out = []
    for r in range(world if started is None else started):
        log = f"node{r}.log" if netns else f"rank{r}.log"
        out.append(Proc(log, WORKER + args, env(r, world, **extra), r if netns else None))
    return tuple(out)


def job(tag: str, world: int, *args: str, delay: float = 0.0) -> tuple[Proc, ...]:
    return tuple(Proc(f"{tag}-rank{r}.log", WORKER + args, env(r, world), None, delay) for r in range(world))


def accelerate_nodes(*args: str, machine_ranks: tuple[int, int] = (0, 1)) -> tuple[Proc, ...]:
    """`accelerate launch --multi_gpu` on node0 and node1, one process each: accelerate hands the job to torch's
    elastic agent (static rendezvous at main_process_ip:port), which starts lab.worker; gloo on CPU."""
    return tuple(Proc(f"node{n}.log", ACCELERATE + ("--machine_rank", str(r), "-m", "lab.worker") + args,
                      {"PYTHONPATH": "{accelerate_path}"}, n) for n, r in enumerate(machine_ranks))


def lightning_nodes(node_ranks: tuple[int, int] = (0, 1)) -> tuple[Proc, ...]:
    """lab.lightning_job on node0 and node1, one process each, with NODE_RANK, MASTER_ADDR and MASTER_PORT as a
    user sets them on machines without a scheduler."""
    return tuple(Proc(f"node{n}.log", ("{python}", "-m", "lab.lightning_job", "--num-nodes", "2", "--timeout", "8"),
                      {"PYTHONPATH": "{lightning_path}", "NODE_RANK": str(r), "MASTER_ADDR": "{addr0}",
                       "MASTER_PORT": "{port}"}, n) for n, r in enumerate(node_ranks))


def tf_workers(*args: str, exit_at: int = -1) -> tuple[Proc, ...]:
    """lab.tf_job on node0 and node1 (MultiWorkerMirroredStrategy, one worker each, gRPC on port 29500 of each node);
    worker 1 exits at step ``exit_at`` when it is 0 or more."""
    cluster = '{"cluster": {"worker": ["{addr0}:{port}", "{addr1}:{port}"]}, '
    procs = []
    for n in range(2):
        extra = ("--exit-at", str(exit_at)) if n == 1 and exit_at >= 0 else ()
        procs.append(Proc(f"node{n}.log", ("{python}", "-m", "lab.tf_job") + args + extra,
                          {"PYTHONPATH": "{tensorflow_path}", "TF_CPP_MIN_LOG_LEVEL": "0",
                           "TF_CONFIG": cluster + '"task": {"type": "worker", "index": %d}}' % n}, n))
    return tuple(procs)


DEEPSPEED: tuple[str, ...] = ("{python}", "-m", "deepspeed.launcher.runner")
# a two-node hostfile, written where the runner on node0 reads it (the nodes share the host's file system)
DS_HOSTFILE = "/tmp/lab-deepspeed-hostfile"
WRITE_DS_HOSTFILE = f"printf 'node0 slots=1\\nnode1 slots=1\\n' > {DS_HOSTFILE} && exec "


T = ("--timeout", "6")
DEBUG_LOGS = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL", "TORCH_CPP_LOG_LEVEL": "INFO"}
LONG_JOB = ("--steps", "8", "--step-sleep", "1", "--timeout", "8")


def torchrun_nodes(master_addrs: tuple[str, ...]) -> tuple[Proc, ...]:
    """`torchrun --nnodes N` (static rendezvous) on node0..nodeN-1, one lab.worker each, node n told master_addrs[n]."""
    return tuple(Proc(f"node{n}.log", LAUNCHER + ("--nnodes", str(len(master_addrs)), "--node-rank", str(n),
                      "--nproc-per-node", "1", "--master-addr", addr, "--master-port", "{port}", "--rdzv-conf",
                      "timeout=8") + WORKER[1:] + T, {}, n) for n, addr in enumerate(master_addrs))


# Patterns of the key lines (regexes, each matched against single log lines).
DONE = r"\[rank{}\] .* done$"
STORE_TIMEOUT = r"DistNetworkError: The client socket has timed out after \d+ms while trying to connect"
JOINED = r"DistStoreError: Timed out after \d+ seconds waiting for clients\. {} clients joined"
STORE_WAIT = r"DistStoreError: wait timeout after \d+ms"
MESH_REFUSED = r"RuntimeError: Gloo connectFullMesh failed .*Connection refused, remote=\[{}\]"
MESH_TIMEOUT = r"RuntimeError: Gloo connectFullMesh failed .*Connect timeout"
IN_USE = r"DistNetworkError: The server socket has failed to listen .*EADDRINUSE"
PING_FOREIGN = r"TCP client failed to connect/validate to host .*Ping failed, invalid value returned from server"
RECV_TIMEOUT = r"\[rank{}\]: RuntimeError: .*Timed out waiting 6000ms for recv operation"
TORCHRUN = r"torch/distributed/run\.py"

SCENARIOS: list[Scenario] = [
    Scenario("healthy-loopback", "healthy", "none",
             "Two ranks on one host over loopback, no fault: a clean 3-step run.",
             ranks(2, *T), expect=(DONE.format(0), DONE.format(1))),
    Scenario("healthy-2node-netns", "healthy", "none",
             "Two nodes (network namespaces on one bridge), one rank each, no fault.",
             ranks(2, *T, netns=True), nodes=2, expect=("host=node1 ", DONE.format(0), DONE.format(1))),
    Scenario("store-port-dropped-netns", "port_blocked", "init_timeout",
             "iptables on node0 DROPs TCP to MASTER_PORT 29500 from node1: rank 1 cannot reach "
             "the TCPStore, rank 0 waits for it.",
             ranks(2, *T, netns=True), nodes=2, drop_port=(0, 1),
             expect=(STORE_TIMEOUT + r" to \(10\.213\.0\.1, 29500\)", JOINED.format("1/2"))),
    Scenario("store-refused-wrong-port", "master_addr_wrong", "init_timeout",
             "Rank 1 is launched with MASTER_PORT one above rank 0's: nothing listens there "
             "(connection refused), rank 1 retries until its timeout, rank 0 waits for it.",
             (ranks(2, *T)[0], Proc("rank1.log", WORKER + T, env(1, 2) | {"MASTER_PORT": "{port2}"})),
             also_acceptable=("port_blocked",),
             expect=(STORE_TIMEOUT, r"retrying \(try=0", JOINED.format("1/2"))),
    Scenario("store-refused-wrong-port-debug", "master_addr_wrong", "init_timeout",
             "As store-refused-wrong-port, with rank 1 (the one that fails) run under "
             "TORCH_DISTRIBUTED_DEBUG=DETAIL and TORCH_CPP_LOG_LEVEL=INFO, which print each refused connect.",
             (ranks(2, *T)[0],
              Proc("rank1.log", WORKER + T, env(1, 2, **DEBUG_LOGS) | {"MASTER_PORT": "{port2}"})),
             also_acceptable=("port_blocked",),
             expect=(r"is not yet listening \(errno: 111 - Connection refused\)", STORE_TIMEOUT)),
    Scenario("master-addr-unresolvable", "master_addr_wrong", "init_timeout",
             "MASTER_ADDR=trainer-master, a name in no node's /etc/hosts; the nodes resolve names "
             "from their hosts file only, so no query leaves the namespaces.",
             ranks(2, *T, netns=True, MASTER_ADDR="trainer-master"), nodes=2,
             expect=(r"\(trainer-master, 29500\) cannot be retrieved \(gai error: -2 - Name or service not known\)",
                     STORE_TIMEOUT + r" to \(trainer-master")),
    Scenario("hostname-resolves-to-loopback-netns", "master_addr_wrong", "init_timeout",
             "Each node's /etc/hosts maps its own hostname to 127.0.1.1 (the Debian default) and "
             "GLOO_SOCKET_IFNAME is unset: gloo binds and advertises 127.0.1.1, so the "
             "cross-node connectFullMesh fails.",
             ranks(2, *T, netns=True), nodes=2, hostname_to_loopback=True,
             also_acceptable=("wrong_socket_ifname",),
             expect=(MESH_REFUSED.format(r"127\.0\.1\.1"), MESH_TIMEOUT)),
    Scenario("gloo-ifname-missing-netns", "wrong_socket_ifname", "init_timeout",
             "GLOO_SOCKET_IFNAME=eth0 on both nodes, but node1's NIC is named ens5: node1's gloo "
             "cannot find eth0 and dies at init; node0 waits for node1's address.",
             ranks(2, *T, netns=True, GLOO_SOCKET_IFNAME="eth0"), nodes=2, ifnames={1: "ens5"},
             expect=("Unable to find address for: eth0", STORE_WAIT)),
    Scenario("gloo-ifname-loopback-netns", "wrong_socket_ifname", "init_timeout",
             "GLOO_SOCKET_IFNAME=lo on a two-node job: each rank advertises 127.0.0.1, so the "
             "peers connect to their own loopback.",
             ranks(2, *T, netns=True, GLOO_SOCKET_IFNAME="lo"), nodes=2,
             expect=(MESH_REFUSED.format(r"127\.0\.0\.1"), MESH_TIMEOUT)),
    Scenario("port-in-use-two-jobs", "port_in_use", "crash",
             "Job A (2 ranks, 8 one-second steps) holds MASTER_PORT; job B (2 ranks) starts 3 s "
             "later on the same host with the same MASTER_PORT. B's rank 0 cannot bind "
             "(EADDRINUSE); B's rank 1 connects to job A's store instead.",
             job("jobA", 2, *LONG_JOB) + job("jobB", 2, *T, delay=3.0),
             expect=(IN_USE, DONE.format(1))),
    Scenario("port-in-use-torchrun", "port_in_use", "crash",
             "Job A (2 plain ranks) holds MASTER_PORT; 3 s later torchrun --nnodes 1 "
             "--nproc-per-node 2 --master-port <same> starts on the same host: its agent "
             "cannot bind the store port.",
             job("jobA", 2, *LONG_JOB)
             + (Proc("jobB-torchrun.log", LAUNCHER + ("--nnodes", "1", "--nproc-per-node", "2",
                     "--master-addr", "127.0.0.1", "--master-port", "{port}") + WORKER[1:] + T, {}, None, 3.0),),
             expect=(IN_USE, TORCHRUN)),
    Scenario("store-port-held-by-other-service", "port_in_use", "crash",
             "Another program (a TCP service that greets every client with a banner) listens on "
             "MASTER_PORT; 1 s later the 2-rank job starts: rank 0 cannot bind the store port "
             "(EADDRINUSE), rank 1 connects to the other program and its store ping gets a "
             "foreign answer ('Ping failed, invalid value returned from server') until it times out.",
             (Proc("other-service.log", ("{python}", "-m", "lab.other_service", "{port}", "12")),)
             + tuple(Proc(p.log, p.argv, p.env, p.node, 1.0) for p in ranks(2, *T)),
             expect=(IN_USE, PING_FOREIGN)),
    Scenario("rank-never-joins", "rank_config_error", "init_timeout",
             "WORLD_SIZE=3 but only ranks 0 and 1 are started: the store waits for a third client.",
             ranks(3, *T, started=2), expect=(JOINED.format("2/3"), STORE_WAIT)),
    Scenario("torchrun-static-node-missing-netns", "rank_config_error", "init_timeout",
             "torchrun --nnodes 2 (static rendezvous) is started on node0 only; node1's launcher "
             "never runs, so the agent's store times out waiting for it.",
             (Proc("node0.log", LAUNCHER + ("--nnodes", "2", "--node-rank", "0", "--nproc-per-node", "1",
                   "--master-addr", "{addr0}", "--master-port", "{port}", "--rdzv-conf", "timeout=8")
                   + WORKER[1:] + T, {}, 0),),
             nodes=2, also_acceptable=("port_blocked",), expect=(JOINED.format("1/2"), TORCHRUN)),
    Scenario("torchrun-worker-master-localhost-netns", "master_addr_wrong", "init_timeout",
             "torchrun --nnodes 2 (static rendezvous) on two nodes; node1's command says --master-addr localhost "
             "(copied from a one-node run), node0's its own address: node1's agent dials its own loopback, where "
             "no store listens, and node0's waits for it.",
             torchrun_nodes(("{addr0}", "localhost")),
             nodes=2, expect=(JOINED.format("1/2"), r"trying to connect to \(localhost, 29500\)")),
    Scenario("torchrun-master-localhost-netns", "healthy", "none",
             "torchrun --nnodes 2 (static rendezvous) on two nodes; node0, the master, says --master-addr localhost, "
             "node1 node0's address.",
             torchrun_nodes(("localhost", "{addr0}")),
             nodes=2, expect=(r"done",)),
    Scenario("torchrun-c10d-rdzv-timeout-netns", "rank_config_error", "init_timeout",
             "torchrun --nnodes 2 --rdzv-backend c10d (join_timeout=8) is started on node0 only; "
             "the rendezvous never completes.",
             (Proc("node0.log", LAUNCHER + ("--nnodes", "2", "--nproc-per-node", "1", "--rdzv-backend", "c10d",
                   "--rdzv-endpoint", "{addr0}:{port}", "--rdzv-conf", "join_timeout=8") + WORKER[1:] + T, {}, 0),),
             nodes=2, also_acceptable=("port_blocked",), expect=("RendezvousTimeoutError", TORCHRUN)),
    Scenario("rank-skips-collective", "collective_desync", "hang",
             "At step 1 rank 1 takes a rank-divergent branch that skips the all_reduce and goes "
             "to the barrier; both ranks block until the 6 s gloo timeout.",
             ranks(2, "--fault", "skip-collective", *T),
             expect=(RECV_TIMEOUT.format(0), RECV_TIMEOUT.format(1))),
    Scenario("rank-skips-collective-detail", "collective_desync", "crash",
             "As rank-skips-collective with TORCH_DISTRIBUTED_DEBUG=DETAIL: the wrapper process "
             "group compares collective fingerprints and reports the mismatch.",
             ranks(2, "--fault", "skip-collective", *T, TORCH_DISTRIBUTED_DEBUG="DETAIL"),
             expect=("RuntimeError: Detected mismatch between collectives on ranks",)),
    Scenario("peer-exits-mid-collective", "collective_desync", "crash",
             "At step 1 rank 1 launches the all_reduce and exits (os._exit(1)) before it "
             "completes; rank 0's all_reduce fails on the closed connection.",
             ranks(2, "--fault", "exit-mid-collective", *T),
             expect=(r"\[rank0\]: RuntimeError: .*Connection (reset|closed) by peer", "process dies now")),
    Scenario("route-conflict-worker-netns", "route_conflict", "init_timeout",
             "node1 has a second NIC (eth1) in the cluster's subnet, on a switch with nobody on it, and its route "
             "for the subnet wins: rank 1's connections to the master leave by eth1, where no ARP is answered (No route "
             "to host).",
             ranks(2, *T, netns=True), nodes=2, shadow_nic=1,
             expect=(r"DistNetworkError: The client socket has failed to connect to .*No route to host",
                     JOINED.format("1/2"), r"inet 10\.213\.0\.102/24 .*eth1")),
    Scenario("route-conflict-master-netns", "route_conflict", "init_timeout",
             "node0 (the master) has the second NIC in the subnet whose route wins: node1's SYNs arrive on eth0, "
             "node0's answers leave by eth1 and are lost; both ranks time out.",
             ranks(2, *T, netns=True), nodes=2, shadow_nic=0,
             expect=(STORE_TIMEOUT, JOINED.format("1/2"), r"inet 10\.213\.0\.101/24 .*eth1")),
    Scenario("accelerate-healthy-2node-netns", "healthy", "none",
             "accelerate 0.28 launch --multi_gpu on two nodes, machine_rank 0 and 1, one process each; no fault.",
             accelerate_nodes(*T), nodes=2, needs=("accelerate",),
             expect=(DONE.format(0), DONE.format(1))),
    Scenario("accelerate-store-port-dropped-netns", "port_blocked", "init_timeout",
             "accelerate 0.28 launch --multi_gpu on two nodes; iptables on node0 DROPs TCP to main_process_port "
             "29500 from node1: node1's launcher cannot reach the rendezvous store, node0's waits for it.",
             accelerate_nodes(*T), nodes=2, drop_port=(0, 1), needs=("accelerate",),
             expect=(r"accelerate/commands/launch\.py", STORE_TIMEOUT + r" to \(10\.213\.0\.1, 29500\)",
                     JOINED.format("1/2"))),
    Scenario("accelerate-machine-rank-duplicate-netns", "rank_config_error", "init_timeout",
             "accelerate 0.28 launch --multi_gpu on two nodes whose config was copied from one to the other: both "
             "say machine_rank 0. Both launchers reach the store on node0 and write the role record of node rank 0; "
             "the one of node rank 1 never comes, and both time out waiting for it.",
             accelerate_nodes(*T, machine_ranks=(0, 0)), nodes=2, needs=("accelerate",),
             expect=(r"accelerate/commands/launch\.py",
                     r"DistStoreError: wait timeout after \d+ms, keys: /none/torchelastic/role_info/0, "
                     r"/none/torchelastic/role_info/1")),
    Scenario("lightning-healthy-2node-netns", "healthy", "none",
             "Lightning 2.4 DDP on two nodes (NODE_RANK 0 and 1, one CPU process each, gloo); no fault.",
             lightning_nodes(), nodes=2, needs=("lightning",),
             expect=(r"Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2", r"\[node 1\] global rank 1 done")),
    Scenario("lightning-store-port-dropped-netns", "port_blocked", "init_timeout",
             "Lightning 2.4 DDP on two nodes; iptables on node0 DROPs TCP to MASTER_PORT 29500 from node1: node1's "
             "rank cannot reach the store, node0's waits for it.",
             lightning_nodes(), nodes=2, drop_port=(0, 1), needs=("lightning",),
             expect=(r"Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2",
                     STORE_TIMEOUT + r" to \(10\.213\.0\.1, 29500\)")),
    Scenario("lightning-node-rank-duplicate-netns", "rank_config_error", "init_timeout",
             "Lightning 2.4 DDP on two nodes both started with NODE_RANK=0: both announce GLOBAL_RANK 0 and wait.",
             lightning_nodes(node_ranks=(0, 0)), nodes=2, needs=("lightning",),
             expect=(r"Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2",)),
    Scenario("tf-multiworker-healthy-netns", "healthy", "none",
             "TensorFlow 2.21 MultiWorkerMirroredStrategy on two nodes, one CPU worker each; no fault.",
             tf_workers(), nodes=2, needs=("tensorflow",), deadline=60.0,
             expect=(r"\[worker 1\] done", r"\[worker 0\] done")),
    Scenario("tf-worker-exits-mid-collective-netns", "collective_desync", "crash",
             "TensorFlow 2.21 MultiWorkerMirroredStrategy on two nodes; worker 1 dies (os._exit) at step 2, between "
             "all-reduces: worker 0's next collective is aborted.",
             tf_workers("--steps", "8", exit_at=2), nodes=2, needs=("tensorflow",), deadline=60.0,
             expect=(r"\[worker 1\] exiting at step 2", r"Collective ops is aborted by")),
    Scenario("tf-grpc-port-dropped-netns", "port_blocked", "init_timeout",
             "TensorFlow 2.21 MultiWorkerMirroredStrategy on two nodes; iptables on node0 DROPs TCP to its gRPC port "
             "29500 from node1: worker 1 cannot reach worker 0's coordination service. Nothing fails: worker 0 "
             "waits for task 1, worker 1 for its registration, until the lab's deadline stops both (SIGTERM).",
             tf_workers(), nodes=2, drop_port=(0, 1), needs=("tensorflow",), deadline=45.0,
             expect=(r"Waiting for 1/2 tasks to connect", r"Started server with target: grpc://10\.213\.0\.2:29500")),
    Scenario("deepspeed-hostfile-missing", "rank_config_error", "crash",
             "DeepSpeed 0.16's launcher with --num_nodes 2 and a --hostfile that does not exist: it warns that it will "
             "use local resources only, then stops, having one node where two were asked for.",
             (Proc("launcher.log", DEEPSPEED + ("--num_nodes", "2", "--hostfile", "/etc/lab-no-such-hostfile",
                                                "--no_local_rank", "--module", "lab.worker", "--timeout", "6"),
                   {"PYTHONPATH": "{deepspeed_path}"}),), needs=("deepspeed",),
             expect=(r"Unable to find hostfile, will proceed with training with local resources only",
                     r"ValueError: Num nodes is >1 but no extra nodes available via hostfile")),
    Scenario("deepspeed-ssh-unreachable-netns", "rank_config_error", "crash",
             "DeepSpeed 0.16's launcher on node0 with a two-node hostfile (node0, node1); nothing answers ssh on the "
             "nodes (no passwordless ssh set up), so the runner's ssh check fails before anything starts.",
             (Proc("launcher.log", ("sh", "-c", WRITE_DS_HOSTFILE + " ".join(DEEPSPEED) + f" --hostfile {DS_HOSTFILE}"
                                    " --no_local_rank --module lab.worker --timeout 6"),
                   {"PYTHONPATH": "{deepspeed_path}"}, 0),), nodes=2, needs=("deepspeed",),
             expect=(r"was not reachable via ssh",)),
    Scenario("straggler-slow-rank", "straggler", "slow_training",
             "From step 1 rank 1's compute takes 1.5 s longer each step (a busy node); the job "
             "finishes, but rank 0 spends those seconds waiting in all_reduce.",
             ranks(2, "--fault", "slow-rank", "--slow-seconds", "1.5", "--steps", "5",
                   "--step-sleep", "0.1", *T),
             expect=(r"\[rank0\] .* step 4: .* comm=1\.\d+s", r"\[rank1\] .* step 4: .* compute=1\.\d+s",
                     DONE.format(1))),
]

def by_name() -> dict[str, Scenario]:
    return {s.name: s for s in SCENARIOS}
