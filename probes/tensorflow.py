"""TensorFlow multi-worker training (MultiWorkerMirroredStrategy / CollectiveAllReduce, gRPC) in its own words.

Sample input:
    ValueError: If "cluster" is set in TF_CONFIG, it must have one "chief" node.
    ValueError: worker is not a valid task_type in the cluster_spec: ...
    Connect failed: {"created":"@1521525449.30","description":"Failed to connect to remote host: OS Error","errno":111,
        ...,"os_error":"Connection refused","syscall":"connect","target_address":"ipv4:10.0.1.4:14417"}
    UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.2:12345: Failed to connect to remote host: Connection refused
    ERROR:tensorflow:Remote function on worker /job:worker/replica:0/task:1 failed with UnavailableError():failed to connect to all addresses
    ERROR:tensorflow:Cluster check alive failed, /job:worker/replica:0/task:1 is down, aborting collectives: Deadline Exceeded
    E tensorflow/core/common_runtime/base_collective_executor.cc:249] BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Deadline Exceeded
    tensorflow.python.framework.errors_impl.UnavailableError: Collective ops is aborted by: failed to connect to all addresses
    F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that another task died; ...
    The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, eviction) to debug further.

The last two are the coordination service TensorFlow and JAX share (XLA's TSL): a process that learns a peer task died
ends itself. Its own words say this process is the echo, not the cause (JAX's "Fault Tolerant Distributed JAX" page).
"""
from __future__ import annotations

import re

from doctor.facts.collective import CollectiveTimeout, PeerLost
from doctor.facts.launchers import TaskUnregistered
from doctor.facts.launch import ConnectError, LaunchConfigError, RendezvousTimeout
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import address_class
from probes.remote_shell import outcome_of
from doctor.probing.regex import lazy_compile

_GRPC_OLD = lazy_compile(r'"os_error":"(?P<err>[^"]+)".*?"target_address":"ipv[46]:(?P<host>\[[^\]]+\]|[\d.]+):(?P<port>\d+)"')
_GRPC_NEW = lazy_compile(r"ipv[46]:(?P<host>\[[^\]]+\]|[\d.]+):(?P<port>\d+): Failed to connect to remote host: (?P<err>[^\";\n]+)")
_GRPC_ANY = lazy_compile(r"failed to connect to all addresses")
_TASK = lazy_compile(r"(?P<task>/job:\w+/replica:\d+/task:\d+)")
_CONFIG = lazy_compile(r"(?:ValueError|KeyError|JSONDecodeError|RuntimeError):\s*(?P<msg>.*(?:TF_CONFIG|cluster_spec|task_type|"
                     r"task type|\"chief\" node|ClusterSpec|task index|task_id).*)$")
_DOWN = lazy_compile(r"Cluster check alive failed, (?P<task>\S+) is down")
_ABORTED = lazy_compile(r"Collective ops is aborted by: (?P<why>.+)$")
_DEADLINE = lazy_compile(r"StartAbort (?:DEADLINE_EXCEEDED|Deadline [Ee]xceeded)|DeadlineExceededError")
_RING = lazy_compile(r"Aborting (?:RingReduce|RingGatherer|HierarchicalTreeBroadcaster) with (?P<why>.+)$")
_TIMEOUT_WORDS = lazy_compile(r"deadline|timed? ?out", re.I)
# the coordination service (TSL, shared by TensorFlow and JAX) ending a process because another task died
_TASK_DIED = lazy_compile(r"detected fatal errors\. This most likely indicates that another task died|"
                          r"^\W*The tasks have crashed\. Check the task logs")

# the coordination service (task 0 of a TensorFlow or JAX job) counting the tasks still to register: a count above 0
# that is the log's last word on it is a start-up that never completed (the job was stopped while waiting)
_WAITING = lazy_compile(r"coordination_service\.cc:\d+\] Waiting for (?P<left>\d+)/(?P<total>\d+) tasks to connect")
_SERVER = lazy_compile(r"grpc_server_lib\.cc:\d+\] Started server with target: (?P<target>grpc://\S+)")
_AGENT_CONNECTED = lazy_compile(r"Coordination agent has successfully connected|Initializing CoordinationService")


class TensorFlow(LineProbe):
    name = "tensorflow"
    yields = ("net.connect_error", "launch.config_error", "collective.peer_lost", "collective.timeout", "rdzv.timeout",
              "launch.task_unregistered")
    triggers = ("target_address", "Failed to connect to remote host", "failed to connect to all addresses", "TF_CONFIG",
                "cluster_spec", "task_type", "task type", "ClusterSpec", "Cluster check alive failed",
                "Collective ops is aborted", "StartAbort", "DeadlineExceededError", "Aborting Ring",
                "another task died", "The tasks have crashed", "tasks to connect",
                "Started server with target", "Coordination agent has successfully connected", "Initializing CoordinationService")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.waiting: tuple[int, str, int] | None = None     # (line, text, tasks in all) while some have not registered
        self.server: tuple[int, str, str] | None = None      # this task's own gRPC server (line, text, target)
        self.registered = False                              # its agent connected, or it runs the service itself

    def feed(self, line_no: int, line: str) -> None:
        if (m := _WAITING.search(line)):
            self.waiting = (line_no, line, int(m["total"])) if int(m["left"]) > 0 else None
            return
        if (m := _SERVER.search(line)):
            self.server = (line_no, line, m["target"])
            return
        if _AGENT_CONNECTED.search(line):
            self.registered = True
            return
        for handler in (self._config, self._grpc, self._collectives):
            if handler(line_no, line):
                return

    def finish(self) -> None:
        if self.waiting:     # how many registered is not a count of ranks joined: the tasks' processes may be many
            line_no, line, total = self.waiting
            self.ctx.emit(RendezvousTimeout, line_no, line, backend="tf_coordination", expected=total)
        if self.server and not self.registered:
            line_no, line, target = self.server
            self.ctx.emit(TaskUnregistered, line_no, line, target=target)

    def _config(self, n: int, line: str) -> bool:
        m = _CONFIG.search(line)
        if not m:
            return False
        self.ctx.emit(LaunchConfigError, n, line, what=f"TF_CONFIG: {m['msg'].strip()[:160]}")
        return True

    def _grpc(self, n: int, line: str) -> bool:
        m = _GRPC_OLD.search(line) or _GRPC_NEW.search(line)
        if m:
            host = m["host"].strip("[]")
            self._connect(n, line, host, int(m["port"]), outcome_of(m["err"]))
            return True
        if _GRPC_ANY.search(line) and "Collective ops is aborted" not in line:
            task = _TASK.search(line)
            self._connect(n, line, task["task"] if task else "", -1, "other")
            return True
        return False

    def _connect(self, n: int, line: str, host: str, port: int, outcome: str) -> None:
        loopback, link_local = address_class(host) if host and not host.startswith("/job") else (False, False)
        self.ctx.emit(ConnectError, n, line, host=host, port=port, outcome=outcome, transport="grpc",
                      loopback=loopback, link_local=link_local)

    def _collectives(self, n: int, line: str) -> bool:
        if (m := _DOWN.search(line)):
            self.ctx.emit(PeerLost, n, line, peer=m["task"].rstrip(","), reason="exited")
        elif _TASK_DIED.search(line):
            self.ctx.emit(PeerLost, n, line, peer="another task", reason="exited")
        elif (m := _ABORTED.search(line)) or (m := _RING.search(line)):
            if _TIMEOUT_WORDS.search(m["why"]):
                self.ctx.emit(CollectiveTimeout, n, line, backend="tensorflow", op="collective")
            else:
                task = _TASK.search(line)
                self.ctx.emit(PeerLost, n, line, peer=task["task"] if task else "a worker", reason="remote_error")
        elif _DEADLINE.search(line):
            self.ctx.emit(CollectiveTimeout, n, line, backend="tensorflow", op="collective")
        else:
            return False
        return True
