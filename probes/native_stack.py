"""Native backtraces (gdb `bt`, `thread apply all bt`, `gstack`): the innermost CUDA or NCCL call of each one.

A backtrace of a live training process is taken because it stopped moving; where its innermost CUDA/NCCL frame
waits (a kernel launch that never returns, a stream synchronize, a collective, communicator setup) says what kind
of stall it is. A backtrace printed after "Program received signal SIGSEGV" is a crash, not a stall.

Sample input (gdb, NCCL issue 750):
    #9  0x00007fec9ae1405c in ?? () from /lib/libcudart.so.11.4.108
    #10 0x00007fec9ae67f06 in cudaLaunchKernel () from /lib/libcudart.so.11.4.108
    #11 0x00007fecdf7d6cf9 in ncclStrongStreamLaunchKernel(ncclCudaGraph, ncclStrongStream*, ...) ()
    #14 0x00007fecdf7c5301 in ncclGroupEnd () from
"""
from __future__ import annotations

from doctor.facts.flight_recorder import NativeStack
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

# Innermost-first is how a backtrace reads; the first row whose words the frame's function holds names the wait.
WAITS: tuple[tuple[str, str], ...] = (
    ("Synchronize", "device_sync"),          # cudaStreamSynchronize, cuStreamSynchronize, cudaDeviceSynchronize ...
    ("LaunchKernel", "kernel_launch"),       # cudaLaunchKernel, cuLaunchKernel, ncclLaunchKernel ...
    ("ncclCommInit", "comm_init"),           # ncclCommInitRank, ncclCommInitAll, ncclCommInitRankConfig
    ("ncclCommSplit", "comm_init"),
    ("ncclGroupEnd", "collective"),
    ("ncclAll", "collective"),               # ncclAllReduce, ncclAllGather, ncclAllToAll
    ("ncclReduce", "collective"),            # ncclReduce, ncclReduceScatter
    ("ncclBroadcast", "collective"),
    ("ncclSend", "collective"),
    ("ncclRecv", "collective"),
    ("ProcessGroupNCCL", "collective"),
)
_FRAME = lazy_compile(r"^#(?P<n>\d+)\s+(?:0x[0-9a-fA-F]+\s+in\s+)?(?P<fn>[^\s(]+(?:\([^)]*\))?[^\s(]*)")
_SIGNAL = lazy_compile(r"(?:received|terminated with) signal (?P<sig>SIG[A-Z]+)")


class NativeStacks(LineProbe):
    name = "native_stack"
    yields = ("stack.native",)
    triggers = tuple(words for words, _ in WAITS) + ("received signal", "terminated with signal")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.depth = -1          # frame number of the last recognised frame of the current backtrace
        self.signal = ""

    def feed(self, line_no: int, line: str) -> None:
        if (m := _SIGNAL.search(line)):
            self.signal, self.depth = m["sig"], -1
            return
        m = _FRAME.match(line.strip())
        if m is None:
            return
        function, depth = m["fn"].split("(")[0], int(m["n"])
        waits = next((kind for words, kind in WAITS if words in function), "")
        if not waits:
            return
        if 0 <= self.depth < depth:      # a deeper frame of a backtrace already read: its innermost call counted
            self.depth = depth
            return
        self.depth = depth
        self.ctx.emit(NativeStack, line_no, line, node=self.ctx.node, function=function, waits_in=waits,
                      signal=self.signal)
