"""UCX transports' fatal lines, in UCX's own wording: the transport source file, 'Fatal:', the message.

UCX prints a fatal error of a transport with the file and line that raised it; the UD transport's peer timeout
reads 'transport error: Endpoint timeout' from ud_iface.c in older releases. Each line gives the transport
(ud, rc, dc from the file name) and whether the message is a timeout.

UCX's shared-memory transport (mm: the posix md keeps its segments in /dev/shm) says when it cannot allocate its
receive FIFO or a segment: "mm_iface failed to allocate receive FIFO", "failed to allocate 1065072 bytes using md posix".
Those are a shared-memory allocation failure (sys.call_failed shm_alloc on /dev/shm, what SHM001 reads): with /dev/shm
below what the local ranks need (a pod's default 64 MiB), the FIFO fails and the process often segfaults right after
(openucx/ucx#11683 describes the crash; NVIDIA/ai-cloud-validation#643 the pod and its fix).

Sample input:
    [1,383]<stderr>:[clx-orion-095:15382:0:15382]    ud_iface.c:781  Fatal: transport error: Endpoint timeout
"""
from __future__ import annotations

from doctor.facts.fabric import UcxFatal
from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.lines import errno_of
from doctor.probing.regex import lazy_compile

_FATAL = lazy_compile(r"\b(?P<file>(?P<tl>ud|rc|dc)_\w+)\.c:\d+\s+Fatal:\s*(?P<message>.+?)\s*$")
_TIMEOUT = lazy_compile(r"timed?\s*out|timeout")
_SHM_ALLOC = lazy_compile(r"mm_iface failed to allocate receive FIFO|failed to allocate \d+ bytes using md posix")


class UcxFatalLines(LineProbe):
    name = "ucx_fatal"
    yields = ("ucx.fatal", "sys.call_failed")
    triggers = ("Fatal:", "receive FIFO", "using md posix")

    def feed(self, line_no: int, line: str) -> None:
        if _SHM_ALLOC.search(line):
            self.ctx.emit(CallFailed, line_no, line, call="shm_alloc", errno=errno_of(line), resource="/dev/shm")
            return
        m = _FATAL.search(line)
        if m:
            message = m["message"]
            self.ctx.emit(UcxFatal, line_no, line, transport=m["tl"], message=message[:200],
                          timeout=bool(_TIMEOUT.search(message.lower())))
