"""torch.distributed / c10d / TCPStore / torchrun / gloo launch and rendezvous failures.

Sample input (PyTorch 1.x to 2.x wording):
    torch.distributed.DistNetworkError: The client socket has timed out after 10000ms while trying to connect to (10.0.0.1, 29500).
    RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:152] timed out connecting: SO_ERROR: Connection refused, remote=[127.0.0.1]:8588
    [W socket.cpp:601] [c10d] The IPv6 network addresses of (master, 29500) cannot be retrieved (gai error: -2 - Name or service not known).
    DistNetworkError: The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).
    torch.distributed.DistStoreError: Timed out after 11 seconds waiting for clients. 1/2 clients joined.
    RuntimeError: ... Unable to find address for: eth9
"""
from __future__ import annotations

import re

from doctor.facts.launch import (BindError, ConnectError, DeviceMismatch, DeviceOrdinalError, DuplicateGpu, HostName, IfnameError,
                                 LaunchConfigError, RendezvousTimeout, ResolveError)
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import address_class, errno_of
from doctor.probing.regex import lazy_compile
from probes.nccl_errors import RAS_NOTICE

# A pasted log wrapped at the terminal's width can end the line after the host: '... connect to (172.17.0.2' / ', 44737).'
_CLIENT_TIMEOUT = lazy_compile(r"client socket has timed out after \d+\s*m?s while trying to connect to "
                             r"(?:\((?P<host>[^,]+),\s*(?P<port>\d+)\)|\[?(?P<host2>[^\s\]]+?)\]?:(?P<port2>\d+)"
                             r"|\((?P<host3>[^,\s()]+),?\s*$)")
_UNIQUE_ID = lazy_compile(r"retrieving ncclUniqueId from \[(?P<src>\d+)\] via c10d key-value store.*?got error: (?P<err>.*)")
_HEARTBEAT = lazy_compile(r"should dump|heartbeat|Heartbeat|dump_debug_info")   # the NCCL monitor polling a store that went away
_PLAIN_CONNECT = lazy_compile(r"^\s*(?:RuntimeError|ConnectionError|TimeoutError|ConnectionRefusedError|socket\.timeout)\s*:\s*"
                            r"(?:\[Errno \d+\]\s*)?(?P<what>Connection timed out|Connection refused|timed out)\.?\s*$")
_RDZV_CONNECT = lazy_compile(r"RendezvousConnectionError|connection to the C10d store has failed")
_STORE_BARRIER = lazy_compile(r"(?P<state>Timed out initializing|Waiting in) (?:the )?(?:process group in )?store based barrier.*?"
                            r"world_size=(?P<world>\d+), worker_count=(?P<workers>\d+)")
_BARRIER_KEY = lazy_compile(r"store_based_barrier_key:(?P<group>\d{1,6})")
_GLOO_LOOPBACK = lazy_compile(r"Unable to resolve hostname to a \(local\) address\. Using the loopback")   # often wrapped after 'loopback'
_CLIENT_FAILED = lazy_compile(r"client socket has failed to connect to (?:any local network address|\[(?P<bhost>[^\]\s]+)\]:(?P<bport>\d+)"
                              r"|(?P<host>[^\]\s]+?):(?P<port>\d+))")   # [::ffff:10.0.0.1]:29500: the brackets hold the host
# torch's c10d client (2.3+) pings the store after it connects; a reply that is not its own number means the port is
# answered by another program, not this job's TCPStore: "TCP client failed to connect/validate to host 127.0.0.1:30325
# - retrying (...): Ping failed, invalid value returned from server. Expected: 297731, Got: 68681728"
# (TensorRT-LLM#10374, held-out batch LR; recorded in fixtures/incidents/store-port-held-by-other-service)
_PING_FOREIGN = lazy_compile(r"failed to connect/validate to host \[?(?P<host>[^\]\s]+?)\]?:(?P<port>\d+)\b.*"
                             r"Ping failed, invalid value returned from server")
# torch's c10d client retrying ("The server socket on [h]:p is not yet listening"), and Paddle's TCPStore client
# (tcp_utils.cc: "Retry to connect to 0.1.68.146:63314 while the server is not yet listening.", Paddle#48421): refused.
# The same client when a connect attempt itself timed out (ETIMEDOUT: no answer at that address, not a refusal):
# "The server socket on [::ffff:10.4.6.125]:63617 has timed out, will retry." (vllm-metal#625, held-out batch LS)
_NOT_LISTENING = lazy_compile(r"(?:server socket on|Retry to connect to) \[?(?P<host>[^\]\s]+?)\]?:(?P<port>\d+)"
                              r"(?:(?: is| while the server is) not yet listening|(?P<timed_out> has timed out, will retry))")
# The rendezvous timing out is the exception itself, raised or reported ("raise RendezvousTimeoutError",
# "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError[: ...]"), not a line that names its type: torch's
# elastic agent warns "... has failed to send a keep-alive heartbeat to the rendezvous '2092' due to an error of type
# RendezvousTimeoutError." when one keep-alive write fails and goes on; every node prints it once rank 0's agent has
# exited at the end of a run (MLPerf HPC v3.0 Clemson OpenFold, after its success line: held-out batch FZ)
_RDZV_TIMEOUT = lazy_compile(r"(?:^|[\s.:])RendezvousTimeoutError(?::|\s*$)|\braise RendezvousTimeoutError\b")
_OLD_CONNECT_TIMEOUT = lazy_compile(r"connect\(\) timed out|Socket Timeout|TCPStore.*timed out|Timed out connecting to store")
# Two searches, not one pattern: `what.*?(?:SO_ERROR...)?.*?remote=` was cubic on "timed out connecting " repeated.
_GLOO_WHAT = lazy_compile(r"timed out connecting|failed to connect|Connect timeout|connectFullMesh failed")
_GLOO_REMOTE = lazy_compile(r"remote=\[(?P<host>[^\]]+)\](?::(?P<port>\d+))?")
_NCCL_CALL_CONNECT = lazy_compile(r"Call to connect failed\s*:\s*(?P<err>.*)")
_NCCL_CONNECT_RETRY = lazy_compile(r"Call to connect returned (?P<err>[^,]+), retrying")   # NCCL 2.4-2.7 INFO, repeated per retry
_ACCELERATE_PORT = lazy_compile(r"launch distributed communication on port `?(?P<port>\d+)`?, but another process is utilizing it")
_NCCL_CONNECT = lazy_compile(r"(?:socketStartConnect|socketConnect|Connect to|connect to) (?P<host>[0-9a-fA-F:.%\[\]a-z\-]+)<(?P<port>\d+)> failed\s*:?\s*(?P<err>[^,\n]*)")
_GAI = lazy_compile(r"addresses of \((?P<host>[^,]+),\s*(?P<port>\d+)\) cannot be retrieved \(gai error: (?P<code>-?\d+)")
_RESOLVE_OLD = lazy_compile(r"(?:Name or service not known|nodename nor servname|getaddrinfo failed|Temporary failure in name resolution|gaierror)")
# Slurm's own words (srun, slurmstepd) for a host name no resolver answers: 'Unable to resolve "mgmt": Unknown host'
_RESOLVE_SLURM = lazy_compile(r'Unable to resolve "(?P<host>[^"]+)": Unknown host')
# c10d's TCPStore server when bind()/listen() failed on every address it tried (socket.cpp): the errno is not always in
# the message ("... failed to listen on any local network address. port: 46571, useIpv6: 0, code: -9", PipelineRL#27);
# where it is, it is EADDRINUSE (verl#5889, vllm#11617), and the port is the store's own: read as a failed bind
_LISTEN_ANY = "failed to listen on any local network address"
# ... unless the line names another errno: "errno: 13 - Permission denied" is a privileged port (below 1024) for an
# unprivileged user (ChatGLM-Finetuning#140, Time-LLM#158, seen by held-out batch BT), no port held by another process
_ERRNO = lazy_compile(r"errno:? (?P<n>\d+)")


def _listen_any_in_use(line: str) -> bool:
    """c10d's 'failed to listen on any local network address' with no errno, or with EADDRINUSE (98)."""
    if _LISTEN_ANY not in line:
        return False
    named = _ERRNO.search(line)
    return named is None or named["n"] == "98"


# c10d names the address in both of its EADDRINUSE warnings: "failed to bind to [::]:P" and, when bind() passed but
# listen() did not, "failed to listen on [::]:P" (socket.cpp); "failed to listen on any local network address" names none.
_BIND = lazy_compile(r"(?:(?:bind to|listen on) \[?(?P<host>[^\]\s]*?)\]?:(?P<port>\d+)|port: (?P<port2>\d+))")
# A Ray worker node that cannot reach the head: its raylet's Redis connection (Ray 1.x, hiredis' context.err) or GCS
_RAY_HEAD = lazy_compile(r"Could not establish connection to redis (?P<host>[^\s:]+):(?P<port>\d+) \(context\.err"
                         r"|Failed to connect to GCS at address (?P<host2>[\w.\-]+):(?P<port2>\d+)")
# Open MPI's TCP BTL binds each outgoing connection first; its message wraps before ": Address already in use (98)"
_OMPI_BIND = lazy_compile(r"bind on local address \(\[?(?P<host>[^()\s]*?)\]?:(?P<port>\d+)\) failed")
# Gloo binds each pair's (newer Gloo: each device's) listening socket to the interface address with port 0, the
# kernel's choice (tcp/pair.cc Pair::listen, tcp/socket.cc Socket::bind): its "bind: Address already in use" is an
# ephemeral-port bind, not the store's port held by another job (pytorch/gloo PR 353: ephemeral ports exhausted).
_GLOO_BIND = lazy_compile(r"gloo/transport/tcp/(?:pair|socket)\.cc:\d+\][^\n]{0,40}?\bbind: ")
# torch's elastic agents (torchrun, accelerate launch) swap role records in their store, one key per node rank; the
# agent of node rank 0 waits for every key: a key never written is a node rank no launcher took
_ROLE_INFO = lazy_compile(r"wait timeout after \d+\s*ms, keys: (?P<keys>\S*torchelastic/role_info/\d+(?:,\s*\S*torchelastic/role_info/\d+)*)")
_STORE_WAIT = lazy_compile(r"[Tt]imed out after (?P<secs>\d+) seconds waiting for clients\. (?P<joined>\d+)/(?P<expected>\d+) clients joined")
_IFNAME = lazy_compile(r"Unable to find (?:address for|interface for):? ?(?P<name>[\w.:\-]+)")
_ORDINAL = lazy_compile(r"invalid device ordinal", re.I)
# NCCL init.cc: "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx"; the sentence after the colon is
# the sign itself and is read without the prefix too (a log re-posted or re-worded keeps it, thomaskalnik.com DeepSeek V3 part 4)
_DUPLICATE = lazy_compile(r"(?:Duplicate GPU detected\s*:\s*)?\brank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<bus>\w+)")
# a framework's own words for NCCL's refusal, before or instead of it: "RuntimeError: Attempting to use the same CUDA
# device for multiple distinct roles/ranks within the same communicator." (TRL's vLLM server and trainer on one GPU)
_SAME_DEVICE = "same CUDA device for multiple distinct roles/ranks within the same communicator"
_LOCAL_RANK_CHECK = lazy_compile(r"expected local-rank to be the same as rank % device-count")    # Megatron(-DeepSpeed)
_TWO_DEVICES = lazy_compile(r"Expected all tensors to be on the same device, but found at least two devices, "
                            r"(?P<a>cuda:\d+) and (?P<b>cuda:\d+)")
_MISSING_ENV = lazy_compile(r"environment variable (?P<var>\w+) expected, but not set")
# The ImageNet-example family of research code (moco, moco-v3, SimSiam, DenseCL and their forks) raises this when the
# script was not started distributed: no --multiprocessing-distributed and a world size of 1, so it would run one
# plain process, which its batch shuffle and queue cannot (moco#48, held-out batch IV)
_DDP_ONLY = "Only DistributedDataParallel is supported"
# TensorRT-LLM refuses an engine whose tensor x pipeline layout differs from the MPI world it runs in: the Python
# runtime ('Engine world size (2 * 1) != Runtime world size (1)'), the C++ runtime before and after 0.12
# ('Assertion failed: mpiSize == tp * pp', 'Assertion failed: MPI size 1 != TP size 2 * PP size 1') and its executor
# ('Assertion failed: With communicationMode kLEADER, MPI worldSize is expected to be equal to tp*pp when ...').
_ENGINE_WORLD = lazy_compile(r"Engine world size \((?P<tp>\d+)(?:\s*\*\s*(?P<pp>\d+))?\) != Runtime world size \((?P<mpi>\d+)\)")
_MPI_LAYOUT = lazy_compile(r"Assertion failed: (?:mpiSize == tp \* pp|.{0,60}?MPI worldSize is expected to be equal to tp\s*\*\s*pp|MPI size (?P<mpi>\d+) != TP size (?P<tp>\d+) \* PP size (?P<pp>\d+))")
# A model whose device placement conflicts with the distributed mode (one process per GPU, or ZeRO-3 placing the
# parameters itself): torch DDP refusing a module spread over several GPUs (older torch: 'single-device CUDA modules'),
# accelerate refusing a device_map='auto' model or an 8-/4-bit model loaded on another GPU than the process's own.
# Each names the placement; none is a launcher fault.
_PLACEMENT = lazy_compile(r"device_ids and output_device arguments only work with single-device"
                          r"|You can't train a model that has been loaded (?:with `?device_map='auto'`? in any distributed mode"
                          r"|in 8-bit(?: or 4-bit)? precision on (?:a different device|multiple devices))")
# transformers refusing a loading option under ZeRO-3: its one message names both options it refuses, a device_map (the
# user's placement) and low_cpu_mem_usage=True (which fine-tuning frameworks passed themselves: LMFlow#686,
# LlamaFactory#199), so the line alone does not say whose option it was: a sign of its own, which no rule reads.
_ZERO3_LOADING = lazy_compile(r"DeepSpeed Zero-3 is not compatible with (?:`low_cpu_mem_usage=True` or with )?passing a `?device_map")
_MODULE_DEVICES = lazy_compile(r"device\(type='cuda', index=(\d+)\)")
# trl's GRPO trainer asking for the next GPU for vLLM when none is left (its own 'invalid device ordinal' check)
_VLLM_DEVICE = lazy_compile(r"requested device for vllm \((?:cuda|xpu|npu):(?P<dev>\d+)\) is not available")
# vLLM's own check before it starts workers: "World size (2) is larger than the number of available GPUs (1) in this
# node" (tensor x pipeline parallel asks for more ranks than the node has GPUs; sirzzang's EKS write-up, batch FY)
_WORLD_OVER_GPUS = lazy_compile(r"World size \(\d+\) is larger than the number of available GPUs \((?P<gpus>\d+)\)")


def _outcome(text: str) -> str:
    err = errno_of(text)
    return {"ECONNREFUSED": "refused", "ETIMEDOUT": "timeout", "ENETUNREACH": "unreachable", "EHOSTUNREACH": "unreachable",
            "ECONNRESET": "reset", "ECONNABORTED": "aborted"}.get(err, "other")


# JAX's multi-host start (jax.distributed.initialize): every task registers with the coordination service on process 0;
# a task that cannot reach it in time fails with "DEADLINE_EXCEEDED: Deadline Exceeded" and "RPC:
# /tensorflow.CoordinationService/RegisterTask" (jax#35905: a firewall on the coordinator port), or the client's connect
# barrier "Barrier timed out. Barrier_id: PjRT_Client_Connect". JAX's counterpart of c10d's store timeout: init_timeout
_JAX_COORDINATION = lazy_compile(r"CoordinationService/RegisterTask|Barrier_id: PjRT_Client_Connect")


class LaunchErrors(LineProbe):
    name = "launch_errors"
    yields = ("host.name", "net.connect_error", "net.resolve_error", "net.bind_error", "rdzv.timeout", "net.ifname_error",
              "launch.ordinal_error", "launch.duplicate_gpu", "launch.config_error", "launch.device_mismatch")
    triggers = ("client socket", "is not yet listening", "retrieving ncclUniqueId", "Call to connect failed", "Connection timed out", "Connection refused", "timed out",
                "RendezvousConnectionError", "C10d store has failed", "store based barrier", "Unable to resolve hostname", "connect() timed out", "Socket Timeout", "remote=[", "failed to connect", "Connect to",
                "connect to", "cannot be retrieved", "Name or service not known", "name resolution", "getaddrinfo",
                "Unknown host",
                "gaierror", "bind on local address", _LISTEN_ANY, "Address already in use", "address already in use", "EADDRINUSE", "waiting for clients",
                "torchelastic/role_info",
                "RendezvousTimeoutError", "Unable to find address", "Unable to find interface", "invalid device ordinal",
                "Duplicate GPU detected", "both on CUDA device", "same CUDA device for multiple", "expected, but not set", "Timed out connecting to store", "Call to connect returned",
                "another process is utilizing it", "Could not establish connection to redis",
                "Failed to connect to GCS at address", "rank % device-count", "is larger than the number of available GPUs", "found at least two devices",
                "Runtime world size", "mpiSize == tp", "MPI size ", "worldSize is expected",
                "only work with single-device", "You can't train a model that has been loaded", "passing a `device_map",
                "requested device for vllm", "CoordinationService/RegisterTask", "Barrier_id: PjRT_Client_Connect",
                _DDP_ONLY)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.gloo_pending: tuple[int, str] | None = None
        self.retries_seen: set[str] = set()
        self.foreign_seen: set[tuple[str, str]] = set()   # store addresses answered by another program
        self.bind_head: tuple[int, str, int] | None = None    # a wrapped bind message's first line: (line, host, port)

    def feed(self, line_no: int, line: str) -> None:
        for handler in (self._store_connect, self._gloo_connect, self._nccl_connect, self._ray_connect, self._resolve, self._bind,
                        self._rendezvous, self._ranks):
            if handler(line_no, line):
                return

    def _store_connect(self, n: int, line: str) -> bool:
        m = _CLIENT_TIMEOUT.search(line)
        if m:
            return self._connect(n, line, m["host"] or m["host2"] or m["host3"], m["port"] or m["port2"] or "-1", "timeout", "store")
        m = _UNIQUE_ID.search(line)
        # the store answered, but rank <src> never published the id within the timeout: 'wait timeout' (torch >= 2.2)
        # or, before that, 'Socket Timeout' (the client's read of the WAIT reply timed out; it was connected long before)
        if m and ("wait timeout" in m["err"] or "Socket Timeout" in m["err"]):
            self.ctx.emit(RendezvousTimeout, n, line, backend="nccl_id")
            return True
        if m:   # the store went away under the get (reset, broken pipe, refused): rank 0's process is gone or unreachable
            return self._connect(n, line, "", "-1", _outcome(m["err"]), "store")
        m = _NOT_LISTENING.search(line)
        if m:
            return self._connect(n, line, m["host"], m["port"], "timeout" if m["timed_out"] else "refused", "store")
        m = _PING_FOREIGN.search(line)
        if m:           # one fact per address: the client retries every half second until its timeout
            if (m["host"], m["port"]) not in self.foreign_seen:
                self.foreign_seen.add((m["host"], m["port"]))
                self._connect(n, line, m["host"], m["port"], "misdirected", "store")
            return True
        m = _CLIENT_FAILED.search(line)
        if m:
            return self._connect(n, line, m["bhost"] or m["host"] or "", m["bport"] or m["port"] or "-1", _outcome(line), "store")
        if _OLD_CONNECT_TIMEOUT.search(line) and not _HEARTBEAT.search(line):
            return self._connect(n, line, "", "-1", "timeout", "store")
        m = _PLAIN_CONNECT.search(line)
        if m:
            return self._connect(n, line, "", "-1", "refused" if "refused" in m["what"] else "timeout", "store")
        if _RDZV_CONNECT.search(line):
            return self._connect(n, line, "", "-1", "other", "rdzv")
        return False

    def _gloo_connect(self, n: int, line: str) -> bool:
        pending, self.gloo_pending = self.gloo_pending, None
        what = _GLOO_WHAT.search(line)
        m = _GLOO_REMOTE.search(line, what.end()) if what else None
        if not m and pending and pending[0] == n - 1 and line[:1].isspace() and (m := _GLOO_REMOTE.search(line)):
            n0, first = pending      # a wrapped message: 'remote=[...]' continues on the next, indented line
            return self._connect(n0, first, m["host"], m["port"] or "-1", _outcome(first + line), "gloo")
        if not m:
            if what and "remote=" not in line:
                self.gloo_pending = (n, line)
            return False
        outcome = _outcome(line)
        return self._connect(n, line, m["host"], m["port"] or "-1", outcome, "gloo")

    def _nccl_connect(self, n: int, line: str) -> bool:
        retry = _NCCL_CONNECT_RETRY.search(line)
        if retry:                  # one fact per wording: the same retry line repeats every 100 ms
            if retry["err"] not in self.retries_seen:
                self.retries_seen.add(retry["err"])
                self._connect(n, line, "", "-1", _outcome(retry["err"]), "nccl")
            return True
        m = _NCCL_CONNECT.search(line)
        if not m:
            m = _NCCL_CALL_CONNECT.search(line)
            if m and "WARN" in line:
                return self._connect(n, line, "", "-1", _outcome(m["err"]), "nccl")
            return False
        return self._connect(n, line, m["host"], m["port"], _outcome(m["err"]), "nccl")

    def _connect(self, n: int, line: str, host: str, port: str, outcome: str, transport: str) -> bool:
        host = host.strip().strip("'\"")
        loopback, link_local = address_class(host) if host else (False, False)
        self.ctx.emit(ConnectError, n, line, host=host, port=int(port), outcome=outcome, transport=transport,
                      loopback=loopback, link_local=link_local)
        return True

    def _ray_connect(self, n: int, line: str) -> bool:
        m = _RAY_HEAD.search(line)
        if not m:
            return False
        outcome = "timeout" if m["host2"] and "within" in line else "other"
        return self._connect(n, line, m["host"] or m["host2"], m["port"] or m["port2"], outcome, "ray")

    def _resolve(self, n: int, line: str) -> bool:
        m = _GAI.search(line)
        if m:
            self.ctx.emit(ResolveError, n, line, host=m["host"].strip(), port=int(m["port"]))
            return True
        if _RESOLVE_OLD.search(line) and "ssh: Could not resolve hostname" not in line:   # ssh's own: remote_shell reads it
            self.ctx.emit(ResolveError, n, line, host="")
            return True
        if m := _RESOLVE_SLURM.search(line):
            self.ctx.emit(ResolveError, n, line, host=m["host"])
            return True
        return False

    def _bind(self, n: int, line: str) -> bool:
        if "ras/" in line and RAS_NOTICE.search(line):   # NCCL's RAS socket, not the job's port (probes/nccl_errors.py)
            return False
        if "NCCL WARN UDS:" in line:   # NCCL's Unix-domain socket (a /tmp path passing cuMem handles): no network port;
            return False               # a name taken there is NCCL's own collision (known_bugs.yaml, nccl#1185)
        m = _ACCELERATE_PORT.search(line)
        if m:                      # accelerate checks the port itself before torch binds it
            self.ctx.emit(BindError, n, line, host="", port=int(m["port"]))
            return True
        head = _OMPI_BIND.search(line)
        if head:
            self.bind_head = (n, head["host"], int(head["port"]))
        if "already in use" not in line.lower() and "EADDRINUSE" not in line and not _listen_any_in_use(line):
            return bool(head)
        m = _BIND.search(line)
        if m:
            host, port = m["host"] or "", int(m["port"] or m["port2"])
        elif _GLOO_BIND.search(line):
            host, port = "", 0
        elif head:
            host, port = head["host"], int(head["port"])
        elif self.bind_head and self.bind_head[0] == n - 1:     # the errno on the line after Open MPI's bind line
            _, host, port = self.bind_head
        else:
            host, port = "", -1
        self.ctx.emit(BindError, n, line, host=host, port=port)
        return True

    def _rendezvous(self, n: int, line: str) -> bool:
        if _JAX_COORDINATION.search(line):
            self.ctx.emit(RendezvousTimeout, n, line, backend="jax_coordination")
            return True
        m = _STORE_WAIT.search(line)
        if m:
            self.ctx.emit(RendezvousTimeout, n, line, backend="store", joined=int(m["joined"]), expected=int(m["expected"]))
            return True
        m = _ROLE_INFO.search(line)
        if m:
            self.ctx.emit(RendezvousTimeout, n, line, backend="agent_roles", expected=m["keys"].count("role_info/"))
            return True
        m = _STORE_BARRIER.search(line)
        if m:
            key = _BARRIER_KEY.search(line)
            self.ctx.emit(RendezvousTimeout, n, line, backend="store_barrier", joined=int(m["workers"]),
                          expected=int(m["world"]), surplus=int(m["workers"]) - int(m["world"]),
                          group=int(key["group"]) if key else 0)
            return True
        if _GLOO_LOOPBACK.search(line):
            self.ctx.emit(HostName, n, line, name="", loopback=True)
            return True
        if "RendezvousTimeoutError" in line and _RDZV_TIMEOUT.search(line):
            self.ctx.emit(RendezvousTimeout, n, line, backend="c10d")
            return True
        m = _IFNAME.search(line)
        if m:
            self.ctx.emit(IfnameError, n, line, ifname=m["name"], transport="gloo" if "gloo" in line else "unknown")
            return True
        return False

    def _ranks(self, n: int, line: str) -> bool:
        if _LOCAL_RANK_CHECK.search(line):
            self.ctx.emit(DeviceMismatch, n, line, sign="local_rank_check")
            return True
        if (m := _TWO_DEVICES.search(line)):     # two GPUs, not cpu and cuda: a device mapping, not a missing .to()
            self.ctx.emit(DeviceMismatch, n, line, sign="tensors_on_two_gpus", devices=f"{m['a']}, {m['b']}")
            return True
        if _PLACEMENT.search(line):
            devices = ", ".join(f"cuda:{i}" for i in _MODULE_DEVICES.findall(line)) if "index=" in line else ""
            self.ctx.emit(DeviceMismatch, n, line, sign="placement_vs_distributed", devices=devices)
            return True
        if _ZERO3_LOADING.search(line):
            self.ctx.emit(DeviceMismatch, n, line, sign="zero3_loading_option")
            return True
        m = _DUPLICATE.search(line)
        if m:
            self.ctx.emit(DuplicateGpu, n, line, rank_a=int(m["a"]), rank_b=int(m["b"]), bus_id=m["bus"])
            return True
        if _SAME_DEVICE in line:    # the same refusal in a framework's words, no ranks or device named
            self.ctx.emit(DuplicateGpu, n, line, rank_a=-1, rank_b=-1, bus_id="")
            return True
        if _ORDINAL.search(line):
            self.ctx.emit(DeviceOrdinalError, n, line)
            return True
        if (m := _VLLM_DEVICE.search(line)):
            self.ctx.emit(DeviceOrdinalError, n, line, device=int(m["dev"]))
            return True
        if (m := _WORLD_OVER_GPUS.search(line)):
            self.ctx.emit(DeviceOrdinalError, n, line, device=int(m["gpus"]))
            return True
        m = _MISSING_ENV.search(line)
        if m:
            self.ctx.emit(LaunchConfigError, n, line, what=f"{m['var']} not set")
            return True
        if _DDP_ONLY in line and not line.lstrip().startswith("raise "):    # the error, not its traceback's source line
            self.ctx.emit(LaunchConfigError, n, line, what="not distributed: the script runs only under DistributedDataParallel")
            return True
        return self._engine_layout(n, line)

    def _engine_layout(self, n: int, line: str) -> bool:
        """An inference engine built for tp x pp ranks started in an MPI world of another size (TensorRT-LLM)."""
        m = (_ENGINE_WORLD.search(line) if "Runtime world size" in line else None) or \
            (_MPI_LAYOUT.search(line) if "Assertion failed" in line else None)
        if not m:
            return False
        if m["mpi"] is None:
            what = "world size: the MPI world size differs from the engine's tp * pp"
        else:
            ranks = int(m["tp"]) * int(m["pp"] or 1)
            what = f"world size: the engine is laid out for {ranks} ranks (tp * pp), {m['mpi']} MPI process(es) run it"
        self.ctx.emit(LaunchConfigError, n, line, what=what)
        return True
