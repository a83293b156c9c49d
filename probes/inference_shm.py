"""An inference server that cannot open the system shared-memory region its client made.

Triton's clients pass tensors through POSIX shared memory: the client creates a region in its /dev/shm and registers
its key; the server opens the region by that key. "Unable to open shared memory region: '/input_simple'" is the
server failing that open. The region exists in the client's /dev/shm, so the server does not see the same /dev/shm:
client and server run in containers with separate IPC namespaces (no `--ipc=host`), or the server's /dev/shm is not
usable. Triton's maintainers gave that answer in both threads of the case base (triton#2296, triton#4644).

Sample input:
    error: failed to register input shared memory region: Unable to open shared memory region: '/input_simple'
    tritonclient.utils.InferenceServerException: Unable to open shared memory region: '/output_simple'
"""
from __future__ import annotations

from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_REGION_NOT_OPENED = lazy_compile(r"Unable to open shared memory region: '[^']*'")


class InferenceServerShm(LineProbe):
    name = "inference_shm"
    yields = ("sys.call_failed",)
    triggers = ("Unable to open shared memory region",)

    def feed(self, line_no: int, line: str) -> None:
        if _REGION_NOT_OPENED.search(line):
            self.ctx.emit(CallFailed, line_no, line, call="shm_region_open", errno="", resource="/dev/shm")
