"""Horovod (horovodrun, gloo and MPI controllers) in its own words, mapped onto the PyTorch-equivalent facts.

Sample input:
    [1]<stderr>:terminate called after throwing an instance of 'gloo::IoException'
    [1]<stderr>:  what():  [/tmp/pip-req-build/third_party/gloo/gloo/transport/tcp/pair.cc:589] connect [10.0.0.2]:45113: Connection timed out
    [0]<stderr>:  what():  [.../gloo/transport/tcp/pair.cc:898] Connect timeout [10.0.0.2]:51096
    [E .../horovod/common/gloo/http_store.cc:96] HTTP GET request failed too many times, aborting. See exception message above.
    RuntimeError: ('Put data input KVStore server failed.', URLError(ConnectionRefusedError(111, 'Connection refused')))
    Exception: Timed out waiting for tasks to start. Please check connectivity between servers. ...
    Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, ...
    [2021-...: W /tmp/.../horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be reduced,
        gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. ...
    Missing ranks:
    1: [DistributedGradientTape_Allreduce/cond_1/HorovodAllreduce_grads_0, ...]
    Stalled ops: HorovodBroadcast_dense_kernel_0 [missing ranks: 1]                    (Horovod before 0.20)
    model/HorovodAllreduce_model_gradients_AddN_58_0 [ready ranks: 1],                  (Horovod before 0.16)
    Process 0 exit with status code 137.

The gloo rendezvous (horovodrun's HTTP key-value store, HOROVOD_GLOO_RENDEZVOUS_ADDR:PORT) is Horovod's
rendezvous: failures to reach it are net.connect_error with transport horovod, at the address the same input names.
"""
from __future__ import annotations


from doctor.facts.collective import CollectiveTimeout, PeerLost
from doctor.facts.launch import ConnectError, LaunchConfigError, RendezvousTimeout
from doctor.facts.launchers import CollectiveStall, WorkerExit
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import address_class
from probes.remote_shell import outcome_of
from doctor.probing.regex import lazy_compile

_TAG = lazy_compile(r"^\s*(?:\w{3} \w{3}\s+\d+ [\d:]+ \d{4})?\[(?:\d+,)?(?P<rank>\d+)\]<(?:stdout|stderr)>:")
_GLOO_PAIR = lazy_compile(r"(?:\bconnect|Connect timeout) \[(?P<host>[^\]]+)\]:(?P<port>\d+)(?::\s*(?P<err>.+))?$")
_HTTP_STORE = lazy_compile(r"HTTP (?:GET|PUT|POST)? ?request failed")
_KVSTORE = lazy_compile(r"KVStore server failed.*?(?P<err>Connection refused|timed out|No route to host|Name or service not known)")
_START_TIMEOUT = lazy_compile(r"Timed out waiting for (?P<what>tasks to start|the hosts to acknowledge|[\w ]+)\. Please check connectivity")
_SHUTDOWN = lazy_compile(r"Horovod has been shut down\.")
_STALL = lazy_compile(r"submitted to be reduced, gathered or broadcasted by subset of ranks.*?more than (?P<secs>\d+) seconds")
_MISSING_BLOCK = lazy_compile(r"^\s*(?P<rank>\d+): \[(?P<tensors>[^\]]*)\]?")
# ranks disagree on where an op runs: one rank's Horovod was built without GPU ops (HOROVOD_GPU_OPERATIONS/ALLREDUCE)
_DEVICE_MISMATCH = lazy_compile(r"Mismatched (?P<op>\w+) CPU/GPU device selection: One rank specified device (?P<a>\w+), "
                                r"but another rank specified device (?P<b>\w+)")
_MISSING_INLINE = lazy_compile(r"(?<![\w/.\-])(?P<tensor>[\w/.\-]+) \[missing ranks: (?P<ranks>[\d, ]+)\]")
# Horovod before 0.16 named the ranks that DID submit: "Stalled ops: <tensor> [ready ranks: 1]"
_READY_INLINE = lazy_compile(r"(?<![\w/.\-])(?P<tensor>[\w/.\-]+) \[ready ranks: (?P<ranks>[\d, ]+)\]")
# the warning's second sentence, when a paste starts there: "... only subset of ranks is submitting tensors, which will
# cause deadlock."
_STALL_TAIL = lazy_compile(r"only subset of ranks is submitting tensors, which will cause deadlock")
_RDZV_ENV = lazy_compile(r"HOROVOD_GLOO_RENDEZVOUS_(?P<key>ADDR|PORT)=['\"]?(?P<value>[\w.:\-]+)")
_EXIT = lazy_compile(r"Process (?P<rank>\d+) exit with status code (?P<code>-?\d+)")
_OPS = (("allreduce", "allreduce"), ("allgather", "allgather"), ("broadcast", "broadcast"), ("alltoall", "alltoall"),
        ("reducescatter", "reducescatter"))


def op_of(tensor: str) -> str:
    low = tensor.lower()
    return next((op for words, op in _OPS if words in low), "collective")


class Horovod(LineProbe):
    name = "horovod"
    yields = ("net.connect_error", "rdzv.timeout", "collective.peer_lost", "collective.stalled", "collective.timeout",
              "launch.worker_exit", "launch.config_error")
    triggers = ("connect [", "Connect timeout [", "request failed", "KVStore server failed", "Please check connectivity",
                "Horovod has been shut down", "by subset of ranks", "Missing ranks", "missing ranks:", "ready ranks:",
                "subset of ranks is submitting", "exit with status code",
                # the lines of a stall report's "Missing ranks:" block name Horovod's tensors
                "Horovod", "allreduce.", "allgather.", "broadcast.", "HOROVOD_GLOO_RENDEZVOUS_", "device selection")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.stall: tuple[int, str, float] | None = None          # the open stall warning: line, text, seconds
        self.rdzv: dict[str, str] = {}                            # ADDR / PORT of horovodrun's rendezvous server

    def feed(self, line_no: int, line: str) -> None:
        for m in _RDZV_ENV.finditer(line):
            self.rdzv[m["key"]] = m["value"]
        tag = _TAG.match(line)
        rank = int(tag["rank"]) if tag else None
        body = line[tag.end():] if tag else line
        for handler in (self._connects, self._lifecycle, self._stalls):
            if handler(line_no, line, body, rank):
                return

    def _connects(self, n: int, line: str, body: str, rank: int | None) -> bool:
        if "remote=[" not in body and (m := _GLOO_PAIR.search(body)):
            outcome = "timeout" if "Connect timeout" in body else outcome_of(m["err"] or "")
            self._connect(n, line, rank, m["host"], int(m["port"]), outcome, "gloo")
        elif _HTTP_STORE.search(body) or (m := _KVSTORE.search(body)):
            port = self.rdzv.get("PORT", "")
            self._connect(n, line, rank, self.rdzv.get("ADDR", ""), int(port) if port.isdigit() else -1,
                          outcome_of(body), "horovod")
        else:
            return False
        return True

    def _connect(self, n: int, line: str, rank: int | None, host: str, port: int, outcome: str, transport: str) -> None:
        loopback, link_local = address_class(host) if host else (False, False)
        self.ctx.emit(ConnectError, n, line, rank=rank, host=host, port=port, outcome=outcome, transport=transport,
                      loopback=loopback, link_local=link_local)

    def _lifecycle(self, n: int, line: str, body: str, rank: int | None) -> bool:
        if (m := _DEVICE_MISMATCH.search(body)):
            self.ctx.emit(LaunchConfigError, n, line, rank=rank,
                          what=f"Horovod: {m['op']} device selection differs between ranks ({m['a']} vs {m['b']})")
        elif (m := _START_TIMEOUT.search(body)):
            self.ctx.emit(RendezvousTimeout, n, line, rank=rank, backend="horovodrun")
        elif _SHUTDOWN.search(body):
            self.ctx.emit(PeerLost, n, line, rank=rank, peer="another rank", reason="shutdown")
        elif (m := _EXIT.search(body)):
            code = int(m["code"])
            self.ctx.emit(WorkerExit, n, line, rank=int(m["rank"]), launcher="horovodrun", code=code,
                          signal="SIGKILL" if code in (137, -9) else "")
        else:
            return False
        return True

    def _stalls(self, n: int, line: str, body: str, rank: int | None) -> bool:
        if (m := _STALL.search(body)):
            self.stall = (n, line, float(m["secs"]))
            for inline in _MISSING_INLINE.finditer(body):
                self._stalled(inline["tensor"], inline["ranks"], rank)
            return True
        if self.stall is None and _STALL_TAIL.search(body):
            self.stall = (n, line, -1.0)        # how long they waited is on the first sentence, not pasted
            return True
        if self.stall is None or n - self.stall[0] > 40:
            return False
        if (m := _MISSING_INLINE.search(body)):
            self._stalled(m["tensor"], m["ranks"], rank)
            return True
        if (m := _READY_INLINE.search(body)):
            self._stalled(m["tensor"], f"other than {m['ranks'].strip(', ')}", rank)
            return True
        if (m := _MISSING_BLOCK.match(body)) and "Missing ranks" not in body:
            first = m["tensors"].split(",")[0].strip()
            self._stalled(first, m["rank"], rank)
            return True
        return "Missing ranks" in body

    def _stalled(self, tensor: str, missing: str, rank: int | None) -> None:
        assert self.stall is not None
        n, line, secs = self.stall
        op = op_of(tensor)
        self.ctx.emit(CollectiveStall, n, line, rank=rank, framework="horovod", op=op, tensor=tensor,
                      missing_ranks=", ".join(r.strip() for r in missing.split(",") if r.strip()), waited_s=secs)
        self.ctx.emit(CollectiveTimeout, n, line, rank=rank, backend="horovod", op=op, timeout_s=secs, watchdog=True)
