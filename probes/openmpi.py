"""Open MPI (mpirun/ORTE/PRRTE), UCX and PMIx in their own words, mapped to the facts PyTorch failures give.

Sample input (Open MPI 4.1 help blocks span several lines; the values come a few lines after the title):
    WARNING: An invalid value was given for btl_tcp_if_include.  This
      Local host: node1
      Value:      eth9
      Message:    Unknown interface name
    WARNING: Open MPI failed to TCP connect to a peer MPI process.  ...  Message: connect() to 10.0.0.2:1024 failed
      Error: Connection refused (111)
    A process or daemon was unable to complete a TCP connection ... Remote host: node2
    At least one pair of MPI processes are unable to reach each other for MPI communications.
    [host][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to 172.17.0.1 failed: Connection refused (111)
    [host:06805] btl: tcp: Match incoming connection from [[27443,1],1] 44.128.0.4 with locally known IP 2.2.2.77 failed (iface 0/4)!
    WARNING: Open MPI accepted a TCP connection from what appears to be a another Open MPI process but cannot find ...
    ORTE was unable to reliably start one or more daemons.
    [node1:17861] [[8026,0],1] tcp_peer_send_blocking: send() to socket 9 failed: Broken pipe (32)
    [max15:28222] [0,0,2]-[0,0,0] mca_oob_tcp_peer_try_connect: connect to 192.168.1.14:38852 failed, connecting over all interfaces failed!
    [..] [node1:9266 :0] ucp_context.c:1014 UCX  WARN  network device 'eth9' is not available, please use one or more of: 'eth0'(tcp)
    [..] ucp_context.c:1276 UCX  ERROR no usable transports/devices (asked tcp on network:eth9 )
    The user requested CUDA support with the --mca mpi_cuda_support 1 flag but the library was not compiled with any support.
    mca:opal:base:param:opal_built_with_cuda_support:value:false                      (ompi_info --parsable --all)
    The application appears to have been direct launched using "srun", but OMPI was not built with SLURM's PMI support
    [node001:94018] PMIX ERROR: NOT-FOUND in file ptl_usock.c at line 175
    mpirun noticed that process rank 1 with PID 9647 on node node1 exited on signal 11 (Segmentation fault).
    mpirun --allow-run-as-root -np 2 --mca btl_tcp_if_include lo ./a.out            (-> env.var OMPI_MCA_btl_tcp_if_include)
"""
from __future__ import annotations

import errno
import re
from typing import Any

from doctor.facts.env import EnvVar
from doctor.facts.launch import ConnectError, IfnameError, LaunchConfigError
from doctor.facts.launchers import MpiCudaSupport, RemoteLaunchError, WorkerExit
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import address_class
from probes.remote_shell import outcome_of
from doctor.probing.regex import lazy_compile

_HOST = lazy_compile(r"^\s*\[(?P<host>[A-Za-z0-9][\w.\-]*):\s*\d+(?:\s*:\d+)?\]")      # [node1:12345] or [node1:9266 :0]
_OLD_HOST = lazy_compile(r"^\s*\[(?P<host>[A-Za-z0-9][\w.\-]*)\]\[\[\d+,\d+\],\d+\]")   # [node][[jobid,vpid],rank] (before 4.x)
_UCX_HOST = lazy_compile(r"\[\d+\.\d+\]\s+\[(?P<host>[\w.\-]+):\d+\s*:\d+\]")
_BLOCKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("if_value", lazy_compile(r"An invalid value was given for (?P<param>\w+_if_(?:in|ex)clude)")),
    ("peer_connect", lazy_compile(r"Open MPI failed to TCP connect to a peer MPI process")),
    ("daemon_connect", lazy_compile(r"unable to complete a TCP connection")),
    ("exit_status", lazy_compile(r"detected that one or more processes exited with non-zero status")),
)
_FIELD = lazy_compile(r"^\s*(?P<key>Local host|Remote host|Value|Message|Error|Exit code|Process name):\s*(?P<value>.*?)\s*$")
_CONNECT_TO = lazy_compile(r"connect\(\) to (?P<host>[\w.:\-]+?):(?P<port>\d+) failed")
# Open MPI before 4.1 reports a failed BTL connect on one line (no port); btl_base_verbose reports a connection
# that arrived from an address the peer never advertised (the event the 4.1 'accepted a TCP connection' block names).
_ENDPOINT_CONNECT = lazy_compile(r"_complete_connect\]\s*connect\(\) to (?P<host>[\w.:\-]+?) failed: (?P<err>[^(]+)")
# Open MPI 4.x and later print the errno as a number: "mca_btl_tcp_endpoint_complete_connect: connect() failed with
# errno=113" (113 = EHOSTUNREACH: the BTL paired two interfaces with no route between them, Open MPI's FAQ on TCP)
_ENDPOINT_ERRNO = lazy_compile(r"_complete_connect: connect\(\) failed with errno=(?P<errno>\d+)")
_ERRNO_OUTCOMES = {errno.ECONNREFUSED: "refused", errno.ETIMEDOUT: "timeout", errno.EHOSTUNREACH: "unreachable",
                   errno.ENETUNREACH: "unreachable", errno.ECONNRESET: "reset"}
_MATCH_INCOMING = lazy_compile(r"btl: tcp: Match incoming connection from \[\[[\d,]+\],\d+\] (?P<host>[\w.:\-]+) "
                               r"with locally known IP \S+ failed")
_UNREACHABLE = lazy_compile(r"At least one pair of MPI processes are unable to reach each other")
_MISDIRECTED = lazy_compile(r"Open MPI accepted a TCP connection from what appears to be a")
_DAEMONS = lazy_compile(r"(?:ORTE|PRTE|prterun|mpirun) was unable to (?:reliably )?start one or more daemons")
# Open MPI processes of two builds exchanging start-up data: one unpacks more (or less) than the other packed.
# "ORTE_ERROR_LOG: Data unpack would read past end of buffer in file util/nidmap.c" (users list 2010/12/15035: an
# application left compiled against the old install), "... Data unpack had inadequate space ..." (ompi#9918). Open
# MPI's maintainers: "the majority of time people run into this error, it's because users are accidentally /
# unknowingly using multiple different versions of Open MPI" (ompi#4437). Not always: read as its own sign.
_UNPACK = lazy_compile(r"ORTE_ERROR_LOG: Data unpack (?:would read past end of buffer|had inadequate space)")
# mpirun starts its daemon (orted, prted) on each remote host with options only its own release passes; a daemon
# that calls one unknown is another Open MPI: 'orted: Error: unknown option "--tree-spawn"' ("Only an old version of
# OMPI would not understand that cmd line option", ompi#7630), "[host:pid] Error: unknown option "--hnp-topo-sig""
# (v1.6 meeting v1.10, users list 2016/05/29075). mpirun's own "mpirun: Error: unknown option" is the user's typo.
# The options: those of 1.3 and later, and 1.2's daemon argv as a real launch prints it ("orted --debug --bootproxy 1
# --name 0.0.1 --num_procs 2 --vpid_start 0 --nodename n06 --universe ... --nsreplica ... --gprreplica ...", users list
# 2009/06/9634) and 1.6's ("--daemonize", its strace in users list 2013/06/22130); generic names (--name, --debug,
# --nodename) are left out, other programs have them too.
_DAEMON_OPTION = lazy_compile(r'(?:^\s*(?:\[[\w.\-]+:\s*\d+\]\s*)?|\b(?:orted|prted): )Error: unknown option '
                              r'"--(?P<opt>hnp-topo-sig|tree-spawn|hnp-uri|parent-uri|prtemca|pmixmca|bootproxy'
                              r'|num_procs|vpid_start|nsreplica|gprreplica|daemonize)"')
# The out-of-band channel (ORTE's OOB TCP) between mpirun and its daemons. A daemon that started and could not report
# back: "[node1:17861] [[8026,0],1] tcp_peer_send_blocking: send() to socket 9 failed: Broken pipe (32)" - the other
# end dropped a call-back that reached the wrong process or came from an address it did not expect (users list
# 2015/09/27633: two NICs of one subnet; 2016/06/29540: OpenVZ's venet0 holding 127.0.0.1; 2015/09/27669: Ethernet
# instead of ib0; the errno text may wrap to the next line). And an OOB connect to an address the peer advertised,
# tried on each in turn: "mca_oob_tcp_peer_try_connect: connect to 192.168.1.14:38852 failed: Software caused
# connection abort (103)", then "... failed, connecting over all interfaces failed!" (users list 2007/11/4547 and
# 2007/12/4593: a wrong interface; 2007/10/4127: a host firewall; the address may wrap to the next line): no path to
# the peer, Open MPI's "unable to reach each other" in OOB words.
_OOB_CALLBACK = lazy_compile(r"tcp_peer_send_blocking: send\(\) to socket \d+")
_OOB_TRY = lazy_compile(r"connecting over all interfaces failed|peer_try_connect: connect to\b")
_OOB_PEER = lazy_compile(r"peer_try_connect: connect to\s+(?P<host>[\w.:\-]+?):(?P<port>\d+) failed")
_UCX_DEVICE = lazy_compile(r"UCX\s+WARN\s+network device '(?P<dev>[^']+)' is not available")
_UCX_NONE = lazy_compile(r"UCX\s+ERROR\s+no usable transports/devices \(asked \S+ on network:(?P<dev>[^\s)]+)")
_UCX_CONNECT = lazy_compile(r"UCX\s+ERROR.*?(?P<host>\d{1,3}(?:\.\d{1,3}){3}):(?P<port>\d+)\)? failed:? (?P<err>.+)$")
_CUDA_REQUESTED = lazy_compile(r"requested CUDA support with the --mca mpi_cuda_support 1 flag")
_CUDA_BUILT = lazy_compile(r"(?:opal|mpi)_built_with_cuda_support(?::value:|\" \(current value: \")(?P<v>true|false)")
# Open MPI could not bind a process it launched to the CPUs it chose, and killed it: "Open MPI tried to bind a new
# process, but something went wrong. The process was killed without launching the target application." with its
# field 'Error message: hwloc_set_cpubind returned "Error" for bitmap "2,114"' (ompi#12470, spd#246, MFC#1834). Not
# "tried to bind a process but failed. This is a warning only" (memory binding, the job goes on)
_BIND = lazy_compile(r'hwloc_set_cpubind returned "Error"[^\n]*|Open MPI tried to bind a new process')
_SRUN_PMI = lazy_compile(r"direct launched using \"?srun\"?")
_PMIX = lazy_compile(r"(?P<what>PMIX ERROR: [\w\-]+|PMIx_Init failed|PMI2?_Init failed to intiali[sz]e|OPAL ERROR: \w+ in file pmix\w*)")
_SIGNAL = lazy_compile(r"(?:mpirun|prterun) noticed that process rank (?P<rank>\d+) with PID \d+ on node (?P<node>\S+) "
                     r"exited on signal (?P<sig>\d+) \((?P<name>[^)]+)\)")
# Open MPI (ORTE and PRRTE) refuses to start more ranks than slots; the count may wrap to the next line, and a pasted
# copy may lose the sentence's first characters ("here are not enough slots ...")
_SLOTS = lazy_compile(r"not enough slots available in the system to satisfy the(?:\s+(?P<n>\d+))?")
# --display alloc / ras_base_verbose print the allocation mpirun maps onto, one node a line:
# "    node1: slots=36 max_slots=0 slots_inuse=0 state=UP" (ORTE adds "flags=0x10 " before slots)
_ALLOC_NODE = lazy_compile(r"^\s*(?P<host>[\w.\-]+): (?:flags=0x[0-9a-fA-F]+ )?slots=(?P<slots>\d+) max_slots=\d+ "
                           r"slots_inuse=(?P<inuse>\d+) state=")
_MCA = lazy_compile(r"(?:^|\s)--?mca\s+(?P<name>\w+)\s+(?P<value>\"[^\"]*\"|'[^']*'|\S+)")
_LAUNCHER = lazy_compile(r"\b(?:mpirun|mpiexec|orterun|prterun|horovodrun)\b")
_SIGNAMES = {"Segmentation fault": "SIGSEGV", "Killed": "SIGKILL", "Aborted": "SIGABRT", "Bus error": "SIGBUS",
             "Terminated": "SIGTERM"}


class OpenMpi(LineProbe):
    name = "openmpi"
    yields = ("net.connect_error", "net.ifname_error", "launch.config_error", "launch.remote_error",
              "launch.worker_exit", "mpi.cuda_support", "env.var")
    triggers = ("invalid value was given for", "failed to TCP connect", "unable to complete a TCP connection",
                "exited with non-zero status", "Local host:", "Remote host:", "  Value:", "  Message:", "  Error:",
                "Exit code:", "Process name:", "unable to reach each other", "accepted a TCP connection from",
                "unable to reliably start", "unable to start one or more daemons", "_complete_connect]", "_complete_connect: ",
                "Match incoming connection from", "UCX", "mpi_cuda_support",
                "built_with_cuda_support", "direct launched using", "PMIX ERROR", "PMIx_Init", "PMI_Init", "PMI2_Init",
                "OPAL ERROR", "noticed that process rank", "-mca ", "--mca ", "not enough slots available",
                "ALLOCATED NODES", "slots_inuse=", "hwloc_set_cpubind returned", "tried to bind a new process",
                "Error: unknown option", "Data unpack", "tcp_peer_send_blocking", "connecting over all interfaces", "peer_try_connect: connect to")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.block: dict[str, Any] | None = None       # an open help block: kind, first line, values so far
        self.allocation: dict[str, int] = {}           # free slots per node of the last allocation table printed

    def feed(self, line_no: int, line: str) -> None:
        if self._open_block(line_no, line) or self._block_field(line_no, line):
            return
        for handler in (self._mpi_lines, self._ucx, self._cuda_and_pmi, self._command):
            if handler(line_no, line):
                return

    def _node(self, line: str) -> str | None:
        m = _HOST.match(line) or _OLD_HOST.match(line) or _UCX_HOST.search(line)
        return m["host"] if m else None

    def _open_block(self, n: int, line: str) -> bool:
        for kind, pattern in _BLOCKS:
            if (m := pattern.search(line)):
                self.block = {"kind": kind, "line_no": n, "line": line, "param": m.groupdict().get("param", "")}
                return True
        return False

    def _block_field(self, n: int, line: str) -> bool:
        b = self.block
        m = _FIELD.match(line)
        if not b or not m:
            return False
        if n - b["line_no"] > 16:
            self.block = None
            return False
        b[m["key"]] = m["value"]
        node = b.get("Local host") or None
        if b["kind"] == "if_value" and m["key"] == "Message":
            self.ctx.emit(IfnameError, n, line, node=node, ifname=b.get("Value", ""), transport="mpi")
            self.block = None
        elif b["kind"] == "peer_connect" and m["key"] == "Error":
            target = _CONNECT_TO.search(b.get("Message", ""))
            host, port = (target["host"], int(target["port"])) if target else ("", -1)
            self._connect(n, line, host, port, outcome_of(m["value"]), node)
            self.block = None
        elif b["kind"] == "daemon_connect" and m["key"] == "Remote host":
            self._connect(b["line_no"], b["line"], m["value"], -1, "other", node)
            self.block = None
        elif b["kind"] == "exit_status" and m["key"] == "Exit code":
            rank = re.search(r",(\d+)\]\]?$", b.get("Process name", ""))
            launcher = "horovodrun" if "Horovod" in b["line"] else "mpirun"
            self.ctx.emit(WorkerExit, n, line, rank=int(rank.group(1)) if rank else -1, launcher=launcher,
                          code=int(m["value"]) if m["value"].lstrip("-").isdigit() else 0)
            self.block = None
        return True

    def _connect(self, n: int, line: str, host: str, port: int, outcome: str, node: str | None,
                 transport: str = "mpi") -> None:
        loopback, link_local = address_class(host) if host else (False, False)
        self.ctx.emit(ConnectError, n, line, node=node, host=host, port=port, outcome=outcome, transport=transport,
                      loopback=loopback, link_local=link_local)

    def _mpi_lines(self, n: int, line: str) -> bool:
        if "_complete_connect]" in line and (m := _ENDPOINT_CONNECT.search(line)):
            self._connect(n, line, m["host"], -1, outcome_of(m["err"]), self._node(line))
        elif "failed with errno=" in line and (m := _ENDPOINT_ERRNO.search(line)):
            self._connect(n, line, "", -1, _ERRNO_OUTCOMES.get(int(m["errno"]), "other"), self._node(line))
        elif "Match incoming" in line and (m := _MATCH_INCOMING.search(line)):
            self._connect(n, line, m["host"], -1, "misdirected", self._node(line))
        elif "tcp_peer_send_blocking" in line and _OOB_CALLBACK.search(line):
            self._connect(n, line, "", -1, "misdirected", self._node(line))
        elif ("all interfaces" in line or "try_connect" in line) and _OOB_TRY.search(line):
            peer = _OOB_PEER.search(line)
            self._connect(n, line, peer["host"] if peer else "", int(peer["port"]) if peer else -1, "unreachable",
                          self._node(line))
        elif _UNREACHABLE.search(line):
            self._connect(n, line, "", -1, "unreachable", None)
        elif _MISDIRECTED.search(line):
            self._connect(n, line, "", -1, "misdirected", None)
        elif _DAEMONS.search(line):
            self.ctx.emit(RemoteLaunchError, n, line, launcher="mpirun", reason="daemon")
        elif "Data unpack" in line and _UNPACK.search(line):
            self.ctx.emit(RemoteLaunchError, n, line, launcher="mpirun", host=self._node(line) or "",
                          reason="wire_format")
        elif "unknown option" in line and _DAEMON_OPTION.search(line):
            self.ctx.emit(RemoteLaunchError, n, line, launcher="mpirun", host=self._node(line) or "",
                          reason="daemon_version")
        elif (m := _SIGNAL.search(line)):
            self.ctx.emit(WorkerExit, n, line, node=m["node"], rank=int(m["rank"]), launcher="mpirun",
                          code=-int(m["sig"]), signal=_SIGNAMES.get(m["name"], m["name"]))
        elif "ALLOCATED NODES" in line:
            self.allocation = {}
        elif "slots_inuse=" in line and (m := _ALLOC_NODE.match(line)):
            self.allocation[m["host"]] = int(m["slots"]) - int(m["inuse"])
        elif "not enough slots" in line and (m := _SLOTS.search(line)):
            self._slots_refused(n, line, int(m["n"]) if m["n"] else 0)
        else:
            return False
        return True

    def _slots_refused(self, n: int, line: str, wanted: int) -> None:
        """A refusal is a shortage unless mpirun's own allocation table, printed before it, lists the slots asked for."""
        listed = sum(self.allocation.values())
        if wanted and self.allocation and listed >= wanted:
            what = (f"slots-listed: mpirun refused {wanted} ranks while its allocation lists {listed} free slots "
                    f"on {len(self.allocation)} nodes")
        else:
            what = "slots: Open MPI has fewer slots than " + (f"the {wanted} ranks requested" if wanted else "the ranks requested")
        self.ctx.emit(LaunchConfigError, n, line, node=self._node(line), what=what)

    def _ucx(self, n: int, line: str) -> bool:
        # UCX's WARN "network device 'X' is not available" alone is a notice: UCX goes on with the devices it has and
        # a job on one node needs none (a healthy MLPerf run on one VM printed it for ':1', held-out batch LD). It
        # fails when no named device is left: its ERROR "no usable transports/devices (asked tcp on network:X)".
        if _UCX_DEVICE.search(line):
            return True
        if (m := _UCX_NONE.search(line)):
            self.ctx.emit(IfnameError, n, line, node=self._node(line), ifname=m["dev"].split(":")[0], transport="ucx")
        elif (m := _UCX_CONNECT.search(line)):
            self._connect(n, line, m["host"], int(m["port"]), outcome_of(m["err"]), self._node(line), "ucx")
        else:
            return False
        return True

    def _cuda_and_pmi(self, n: int, line: str) -> bool:
        if _CUDA_REQUESTED.search(line):
            self.ctx.emit(MpiCudaSupport, n, line, node=self._node(line), built=False, requested=True, source="runtime")
        elif (m := _CUDA_BUILT.search(line)):
            self.ctx.emit(MpiCudaSupport, n, line, built=m["v"] == "true", source="ompi_info")
        elif (m := _BIND.search(line)):
            self.ctx.emit(LaunchConfigError, n, line, node=self._node(line), what=f"binding: {m.group(0).strip()[:120]}")
        elif _SRUN_PMI.search(line):
            self.ctx.emit(LaunchConfigError, n, line, node=self._node(line),
                          what="MPI: direct-launched by srun, but Open MPI lacks Slurm's PMI support")
        elif (m := _PMIX.search(line)) and "gds_ds12" not in line:
            # PMIx's "ERROR in file gds_ds12_lock_pthread.c" is its shared-memory data store's lock, a known PMIx
            # defect (open-mpi/ompi#7516; NCCL's guide: PMIX_MCA_gds=hash), printed where the ranks still start (the
            # nccl-tests header after it in pyxis#81): not the launcher failing to hand out ranks. Left an error line.
            self.ctx.emit(LaunchConfigError, n, line, node=self._node(line), what=f"MPI: {m['what']}")
        else:
            return False
        return True

    def _command(self, n: int, line: str) -> bool:
        if not _LAUNCHER.search(line):
            return False
        for m in _MCA.finditer(line):
            self.ctx.emit(EnvVar, n, line, name=f"OMPI_MCA_{m['name']}", value=m["value"].strip("\"'"), source="command")
        return True
