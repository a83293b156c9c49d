"""Native backtraces (gdb `bt`, `thread apply all bt`, `gstack`, lldb `bt`, `py-spy dump --native`): the innermost
CUDA or NCCL call of each one.

A backtrace of a live training process is taken because it stopped moving; where its innermost CUDA/NCCL frame
waits (a kernel launch that never returns, a stream synchronize, a collective, communicator setup) says what kind
of stall it is. A backtrace printed after "Program received signal SIGSEGV" is a crash, not a stall.

Sample input (gdb, NCCL issue 750):
    #9  0x00007fec9ae1405c in ?? () from /lib/libcudart.so.11.4.108
    #10 0x00007fec9ae67f06 in cudaLaunchKernel () from /lib/libcudart.so.11.4.108
    #11 0x00007fecdf7d6cf9 in ncclStrongStreamLaunchKernel(ncclCudaGraph, ncclStrongStream*, ...) ()
    #14 0x00007fecdf7c5301 in ncclGroupEnd () from
lldb numbers its frames as "frame #N: 0xADDR lib`function"; py-spy --native does not number them (indented
"function (file:line)" or "function (lib.so)" rows under a "Thread N (state)" header, innermost first). A C++
exception trace ("frame #1: c10d::...::checkTimeout(...) + 0x1d2 (0x... in libtorch_cuda.so)") is where an error was
thrown, not where a live process waits: it has neither gdb's "#N" start, lldb's backtick nor py-spy's bare row.
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
    ("ncclCommAbort", "comm_teardown"),      # tearing a communicator down: meant to return promptly, even mid-error
    ("ncclCommDestroy", "comm_teardown"),
    ("ProcessGroupNCCL::abort", "comm_teardown"),
    ("ProcessGroupNCCL::shutdown", "comm_teardown"),
    ("~ProcessGroupNCCL", "comm_teardown"),
    ("ncclCommSplit", "comm_init"),
    ("ncclGroupEnd", "collective"),
    ("ncclAll", "collective"),               # ncclAllReduce, ncclAllGather, ncclAllToAll
    ("ncclReduce", "collective"),            # ncclReduce, ncclReduceScatter
    ("ncclBroadcast", "collective"),
    ("ncclSend", "collective"),
    ("ncclRecv", "collective"),
    ("ProcessGroupNCCL", "collective"),
)
# Helpers that wait on behalf of their caller: the next outer frame says what is waited for.
HELPERS = ("waitForFutureOrTimeout",)
_FRAME = lazy_compile(r"^#(?P<n>\d+)\s+(?:0x[0-9a-fA-F]+\s+in\s+)?(?P<fn>[^\s(]+(?:\([^)]*\))?[^\s(]*)")
_LLDB_FRAME = lazy_compile(r"^frame #(?P<n>\d+): 0x[0-9a-fA-F]+ [^\s`]+`(?P<fn>[^\s(]+)")
_PYSPY_FRAME = lazy_compile(r"^\s+(?P<fn>[^\s()]+) \([^()\s]+\)$")
_SIGNAL = lazy_compile(r"(?:received|terminated with|stop reason =) signal (?P<sig>SIG[A-Z]+)")
LIVE_STOPS = ("SIGSTOP", "SIGINT", "SIGTRAP")    # how a debugger attaching to a live process stops it (lldb)


class NativeStacks(LineProbe):
    name = "native_stack"
    yields = ("stack.native",)
    triggers = tuple(words for words, _ in WAITS) + ("received signal", "terminated with signal", "Thread ", "thread #",
                                                      "stop reason = signal")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.depth = -1          # frame number of the last recognised frame of the current backtrace
        self.signal = ""

    def feed(self, line_no: int, line: str) -> None:
        if (m := _SIGNAL.search(line)):
            self.signal, self.depth = ("" if m["sig"] in LIVE_STOPS else m["sig"]), -1
            return
        stripped = line.strip()
        if stripped.startswith(("Thread ", "thread #")):     # a new thread's backtrace (gdb, py-spy, lldb)
            self.depth = -1
            return
        frame = self._frame(line, stripped)
        if frame is None:
            return
        function, depth = frame
        if any(helper in function for helper in HELPERS):
            return
        waits = next((kind for words, kind in WAITS if words in function), "")
        if not waits:
            return
        if 0 <= self.depth < depth:      # a deeper frame of a backtrace already read: its innermost call counted
            self.depth = depth
            return
        self.depth = depth
        self.ctx.emit(NativeStack, line_no, line, node=self.ctx.node, function=function, waits_in=waits,
                      signal=self.signal)

    def _frame(self, line: str, stripped: str) -> tuple[str, int] | None:
        """(function, frame number) of a gdb, lldb or py-spy --native frame row; py-spy rows count on from the
        last one read, innermost first like the others."""
        if (m := _FRAME.match(stripped)) or (m := _LLDB_FRAME.match(stripped)):
            return m["fn"].split("(")[0], int(m["n"])
        if (m := _PYSPY_FRAME.match(line.rstrip())):
            return m["fn"], self.depth + 1 if self.depth >= 0 else 0
        return None

