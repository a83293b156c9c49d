"""NCCL errors as frameworks report them, and the failed calls NCCL WARN lines name.

Sample input:
    torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3
    RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:290, unhandled system error, NCCL version 2.7.8
    node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied
    misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-gVcCAD to 9637892 bytes, error: No space left on device (28)
    misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory
    ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_3:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.1.2.3
    NET/IB : Got completion from peer 10.0.0.2<52386> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1
    transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129   (NCCL 2.4-2.7: no peer)
    ncclSocketInit: connecting to address with family 0 is neither AF_INET(2) nor AF_INET6(10)
"""
from __future__ import annotations

import ipaddress
from functools import lru_cache
import re

from doctor.facts.nccl import CallFailed, HandleCorrupt, IbEvent, NcclError, NcclWarn
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import errno_of, version_num
from doctor.probing.regex import lazy_compile

_CODES: tuple[tuple[str, str], ...] = (
    ("unhandled system error", "system"), ("unhanled system error", "system"),   # PyTorch 1.0-1.1 c10d's own spelling
    ("ncclSystemError", "system"), ("internal error", "internal"),
    ("ncclInternalError", "internal"), ("invalid usage", "invalid_usage"), ("ncclInvalidUsage", "invalid_usage"),
    ("invalid argument", "invalid_usage"), ("remote process exited or there was a network error", "remote"),
    ("ncclRemoteError", "remote"), ("unhandled cuda error", "cuda"), ("ncclUnhandledCudaError", "cuda"),
    ("ncclInProgress", "timeout"),
)
# NCCL 2.2x+ names the function between the source and the level when it knows it (debug.cc: "%s:%d (%s) NCCL WARN"),
# e.g. "transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN ...": the source is still the file and line
_FUNC = r"(?:\s+\([\w:~<>]+\))?"
_WARN = lazy_compile(r"(?:(?<![\w/.\-])(?P<src>[\w/.\-]+\.(?:cc|c|h|cu|cpp):\d+)" + _FUNC + r"\s+NCCL WARN|(?<![\w/.\-])(?P<src2>[\w/.\-]+\.(?:cc|c|h|cu|cpp):\d+)" + _FUNC + r"\s+WARN|NCCL WARN)\s+(?P<msg>.*)")
_VERSION_TAIL = lazy_compile(r"NCCL version (?P<v>\d+\.\d+\.\d+)")
_QP = lazy_compile(r"Call to (?P<call>ibv_\w+) failed(?: with(?: error)?)?\s*(?P<rest>.*)")
_GID_INDEX = lazy_compile(r"GID index (?P<i>\d+)")
_DEV = lazy_compile(r"on dev (?P<dev>[\w\-]+(?::\d+)?)")
_LOCAL_GID = lazy_compile(r"local GID (?P<g>[0-9a-fA-F:.]+[0-9a-fA-F])")
_REMOTE_GID = lazy_compile(r"remote GID (?P<g>[0-9a-fA-F:.]+[0-9a-fA-F])")
# The work completion's status: "with error 12" (2.4-2.7), "with status=12" (2.8+), and NCCL 2.28+'s named form "with
# status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129" (nccl#2397)
_COMPLETION_STATUS = lazy_compile(r"(?:status=(?:IBV_WC_\w+\()?|error )(\d+)")
# NCCL 2.19+'s completion error ends in "localGid <gid> remoteGids<gid>" (often no space after "remoteGids")
_COMPLETION_GIDS = lazy_compile(r"localGid\s*(?P<l>[0-9a-fA-F:.]*[0-9a-fA-F])\s+remoteGids?\s*(?P<r>[0-9a-fA-F:.]*[0-9a-fA-F])?")
# NCCL 2.2x's connect info before the QP moves to RTR: "NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1040 mtu 5 ... GID 0
# (80FE/1A8A41FEFF21A75E)": the GID index, then subnet prefix and interface id as little-endian 64-bit hex
_CONNECT_GID = lazy_compile(r"\bqpn \d+\b.*\bGID (?P<i>\d+) \((?P<prefix>[0-9A-Fa-f]+)/(?P<iid>[0-9A-Fa-f]+)\)")
_THREAD = lazy_compile(r"^\s*(?P<t>[\w.\-]+:\d+:\d+) ")
# an HCA's asynchronous event, in the three wordings of net_ib.cc: "Got async event : port error" (to 2.1x),
# "mlx5_0:1 Got async error event: port error" (2.2x, the non-fatal ones) and "mlx5_0:1 async fatal event on QP (0x..):
# ..." (2.2x, the fatal ones)
_ASYNC_EVENT = lazy_compile(r"(?:(?P<dev>[\w\-]+:\d+)\s+)?(?:Got async (?:error )?event|async fatal event(?: on \w+(?: \([^)]*\))?)?)"
                            r"[^:]*:\s*(?P<event>.+)")


# Notices NCCL printed at WARN level before it moved them to INFO: "misc/ibvwrap.cc:63 NCCL WARN Failed to open
# libibverbs.so[.1]" (2.4 and before) is "NCCL INFO Failed to open libibverbs.so[.1]" from 2.5 on: no verbs library,
# NCCL goes on with sockets (the maintainers on nccl#259: information, not an error). nccl_log reads the notice as
# nccl.ib_unavailable; it is no NCCL failure line.
# RCCL warns when MSCCL++ was asked for but cannot run here, sets it off and goes on with its own kernels (src/init.cc:
# "MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible", "... on <arch> architecture", "MSCCL++:
# Feature not enabled" for a build without it): two accepted MLPerf runs on MI300X and MI325X print it (held-out
# batches FH, FN).
# aws-ofi-nccl's configure_nvls_option (1.7.x) looks up ncclGetVersion to decide on NVLS; not finding it, it warns,
# leaves NVLS off and goes on (its source, commit 14b014f): AWS's own SageMaker smddp MNIST run prints it 16 times and
# succeeds (held-out batch HM)
NOTICE_WARNS = ("Failed to open libibverbs.so", "MSCCL++: Cannot enable MSCCL++", "MSCCL++: Feature not enabled",
                "NET/OFI Could not find ncclGetVersion symbol")
# NCCL 2.24+'s RAS (its reliability service) listens on localhost:28028 once per node; a rank that finds the port taken
# by another rank of the node warns "ras/client_support.cc:181 NCCL WARN Call to bind failed: Address already in use",
# then "NCCL INFO RAS failed to establish a client listening socket at localhost:28028", and goes on (nccl#2397's
# working run): a notice, not the job's port in use and no NCCL failure
RAS_NOTICE = lazy_compile(r"\bras/\w+\.cc:\d+ NCCL WARN Call to (?:bind|listen) failed")


_BARE_WARNS = ("Failed to find reverse path", "Could not find a path for pattern", "Could not find NET with id",
               # version signs torch repeats under "Last error:": a config from a newer nccl.h (2.17+ leaves unset
               # fields at INT_MIN) given to an older libnccl; an NCCL built for CUDA < 11.3 asked to join a CUDA graph
               "Invalid config blocking attribute value", "cannot be captured in a graph if either it wasn't built",
               # a collective left with no algorithm (NCCL_ALGO / NCCL_PROTO forced one it lacks), 2.19-2.30 and 2.31
               "no algorithm/protocol available for function", "No algorithm/protocol nor symKernelId available")
# aws-ofi-nccl's WARN text as torch repeats it under "Last error:" ("NET/OFI Unable to insert remote address ...")
_OFI_LAST = "NET/OFI Unable to"
# NCCL 2.2x's own text for a failed NVLS multicast call, as torch repeats it under "Last error:" (the WARN reads
# "transport/nvls.cc:N NCCL WARN Cuda failure N '...'" before 2.29, the same text as the repeat from 2.29 on)
_NVLS_LAST = lazy_compile(r"Failed to \w+ NVLink SHARP \(NVLS\) Multicast memory.*?CUDA error (?P<code>\d+) '(?P<text>[^']*)'")
# NCCL's CUDACHECK text ("Cuda failure 'invalid argument'", 2.19+ "Cuda failure 1 'invalid argument'") as torch repeats it
# under "Last error:" after ncclUnhandledCudaError: the CUDA error NCCL got, named (the WARN line itself is read above)
_CUDA_FAILURE_LAST = lazy_compile(r"\bCuda failure (?:\d+ )?'[^']+'")


@lru_cache(maxsize=1024)      # a node's QP connect lines repeat its few GIDs, one line per queue pair
def _gid_text(prefix: str, iid: str) -> str:
    """The GID NCCL printed as two little-endian 64-bit hex words, in the usual colon form ('80FE' -> 'fe80::...')."""
    try:
        raw = int(prefix, 16).to_bytes(8, "little") + int(iid, 16).to_bytes(8, "little")
    except OverflowError:      # more than 16 hex digits: not the format this reads
        return ""
    return ipaddress.IPv6Address(raw).compressed


def _call_name(raw: str) -> str:
    for base in ("ibv_reg_mr", "ibv_modify_qp", "ibv_create_qp", "ibv_open_device", "ibv_poll_cq", "ibv_get_device_list",
                 "ibv_query_gid", "ibv_reg_dmabuf_mr"):
        if raw.startswith(base):
            return base
    return raw


class NcclErrors(LineProbe):
    name = "nccl_errors"
    yields = ("nccl.error", "nccl.warn", "sys.call_failed", "nccl.handle_corrupt", "nccl.ib_event")
    triggers = ("NCCL error", "NCCL Error", "NCCL failure", "ncclSystemError", "ncclInternalError", "ncclInvalidUsage", "ncclRemoteError",
                "ncclUnhandledCudaError", "unhandled system error", "unhanled system error", "unhandled cuda error", "remote process exited",
                "NCCL WARN", "WARN Call to", "shm_open", "posix_fallocate", "/dev/shm", "shared memory segment",
                "Call to ibv_", "Got completion from peer", "Got completion with error", "Got async event", "unable to write to file </torch_",
                "unable to open shared memory", "unable to allocate shared memory", "unable to mmap", "with family 0", "neither AF_INET", " WARN ",
                " qpn ", "NVLink SHARP (NVLS) Multicast", _OFI_LAST, "Cuda failure", *_BARE_WARNS)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.connect_gid: dict[str, tuple[int, str]] = {}   # host:pid:tid -> the GID its last QP connect used

    def feed(self, line_no: int, line: str) -> None:
        if "ras/" in line and RAS_NOTICE.search(line):
            return
        self._framework_error(line_no, line)
        m = _WARN.search(line) if "WARN" in line else None   # the regex tries every position: NCCL's 'qpn' lines are many
        if m:
            msg = m["msg"].strip()
            if msg.startswith(NOTICE_WARNS):
                msg = ""
            elif "NVLS" in msg and (nvls := _NVLS_LAST.search(msg)):   # 2.29's own WARN words the NVLS CUDA failure so
                msg = f"Cuda failure {nvls['code']} '{nvls['text']}'"  # too: the same form as its "Last error:" repeat
            if msg:
                self.ctx.emit(NcclWarn, line_no, line, src=m["src"] or m["src2"] or "", message=msg[:200])
        elif any(w in line for w in _BARE_WARNS):   # NCCL's WARN text as torch repeats it under "Last error:"
            self.ctx.emit(NcclWarn, line_no, line, src="", message=line.strip()[-200:])
        elif _OFI_LAST in line and " INFO " not in line:
            self.ctx.emit(NcclWarn, line_no, line, src="", message=line[line.index(_OFI_LAST):].strip()[:200])
        elif "NVLS" in line and (nvls := _NVLS_LAST.search(line)):
            self.ctx.emit(NcclWarn, line_no, line, src="nvls", message=f"Cuda failure {nvls['code']} '{nvls['text']}'")
        elif "Cuda failure" in line and (cuda := _CUDA_FAILURE_LAST.search(line)):
            self.ctx.emit(NcclWarn, line_no, line, src="", message=cuda.group(0)[:200])
        self._calls(line_no, line)
        if "with family 0" in line or "neither AF_INET" in line:
            self.ctx.emit(HandleCorrupt, line_no, line, detail="peer address decoded with family 0")

    def _framework_error(self, n: int, line: str) -> None:
        low = line.lower()
        if " WARN " in line or ("nccl" not in low and "remote process exited" not in low):
            return   # WARN lines name failed calls (handled by _calls), not framework result codes
        for words, code in _CODES:
            if words.lower() in low:
                v = _VERSION_TAIL.search(line)
                self.ctx.emit(NcclError, n, line, code=code, version_num=version_num(v["v"]) if v else 0, detail=words)
                return

    def _calls(self, n: int, line: str) -> None:
        low = line.lower()
        if "shm_open" in low and "failed" in low:
            self._call(n, line, "shm_open", "/dev/shm")
        elif ("posix_fallocate" in low or "failed to extend /dev/shm" in low or "ftruncate" in low) and (
                "failed" in low or "error" in low):
            self._call(n, line, "shm_alloc", "/dev/shm")
        elif "attaching to shared memory segment" in low and "error" in low:
            # the peer's segment is opened, not created: ENOENT here means the creator's file is not in this
            # /dev/shm (another IPC namespace, a segment already unlinked, an NCCL bug), not that /dev/shm is full
            self._call(n, line, "shm_attach", "/dev/shm")
        elif "unlink shared memory" in low and "failed" in low:
            # NCCL removing a segment it made itself finds it gone ("unlink shared memory /dev/shm/nccl-X failed, error:
            # No such file or directory"): something else deleted it (systemd-logind's RemoveIPC, a /dev/shm cleaner)
            self._call(n, line, "shm_unlink", "/dev/shm")
        elif "shared memory segment" in low and "error" in low:
            self._call(n, line, "shm_alloc", "/dev/shm")
        elif "unable to open shared memory object" in low:
            # PyTorch's receiving side opening a segment a worker made (MapAllocator): not creating one, so no full
            # /dev/shm; its errno tells (EMFILE: open-file limit, ENOENT: the segment was already unlinked)
            self._call(n, line, "shm_attach", "/dev/shm")
        elif any(w in low for w in ("unable to write to file </torch_", "unable to allocate shared memory", "unable to mmap")):
            self._call(n, line, "shm_alloc", "/dev/shm")   # DataLoader workers passing tensors through /dev/shm
        if " qpn " in line and (c := _CONNECT_GID.search(line)) and (thread := _THREAD.search(line)):
            self.connect_gid[thread["t"]] = (int(c["i"]), _gid_text(c["prefix"], c["iid"]))
        m = _QP.search(line) if "Call to" in line else None
        if m:
            gid = _GID_INDEX.search(line)
            dev = _DEV.search(line)
            local, remote = _LOCAL_GID.search(line), _REMOTE_GID.search(line)
            index, local_gid = int(gid["i"]) if gid else -1, local["g"] if local else ""
            if not gid and not local and self.connect_gid and (thread := _THREAD.search(line)) \
                    and thread["t"] in self.connect_gid:   # 2.2x: the GID came on the connect line
                index, local_gid = self.connect_gid[thread["t"]]
            self._call(n, line, _call_name(m["call"]), dev["dev"] if dev else "",
                       gid_index=index, roce="::ffff:" in line or "RoCE" in line,
                       local_gid=local_gid, remote_gid=remote["g"] if remote else "")
        if "async " in line and (m := _ASYNC_EVENT.search(line)):     # 2.2x's wordings are WARN lines: triggered
            event = m["event"].strip(" :")[:80]
            dev = _DEV.search(line)
            self.ctx.emit(IbEvent, n, line, hca=dev["dev"] if dev else m["dev"] or "", event=event,
                          port_down=any(w in event.lower() for w in ("port error", "port_err", "port down", "lid change")))
        if "Got completion from peer" in line or "Got completion with error" in line:   # 2.8+ / 2.4-2.7 wording
            status = _COMPLETION_STATUS.search(line)
            gids = _COMPLETION_GIDS.search(line)
            local, remote = (gids["l"], gids["r"] or "") if gids else ("", "")
            self.ctx.emit(CallFailed, n, line, call="ibv_poll_cq", errno=f"IBV_WC_{status.group(1)}" if status else "",
                          resource="", roce="::ffff:" in line or roce_gid(local) or roce_gid(remote),
                          local_gid=local, remote_gid=remote)

    def _call(self, n: int, line: str, call: str, resource: str, **extra: object) -> None:
        self.ctx.emit(CallFailed, n, line, call=call, errno=errno_of(line), resource=resource, **extra)


def roce_gid(gid: str) -> bool:
    """Whether a GID NCCL printed is an Ethernet (RoCE) GID, as an expert reads its address.

    RoCE GIDs are the netdev's IP addresses: IPv4-mapped (::ffff:a.b.c.d, RoCE v2), a routable IPv6 address
    (global or unique-local, RoCE v2), or the netdev's link-local fe80:: whose interface id is the EUI-64 of its MAC
    (ff:fe in the middle). An InfiniBand GID is the subnet prefix (fe80:: by default, fec0:: for site subnets) and
    the port GUID, which has no ff:fe (a ConnectX GUID reads a088:c203:65:4a1e, 966d:ae03:8b:df50).
    """
    g = gid.lower().split("%", 1)[0]
    if g.startswith("::ffff:") and "." in g:
        return True
    try:
        addr = ipaddress.IPv6Address(g)
    except ValueError:
        return False
    if addr.is_link_local:
        return addr.packed[11:13] == b"\xff\xfe"
    return not addr.is_site_local and not addr.is_unspecified and not addr.is_loopback

