"""Native backtraces of a process hung tearing an NCCL communicator down (held-out batch BC).

Each text is verbatim from the thread or case named beside it: lldb (numbered "frame #N: 0xADDR lib`function") and
py-spy --native (unnumbered rows under a "Thread" header) next to gdb's "#N ... in" form, and a C++ exception trace
that must stay unread (it says where an error was thrown, not where a live process waits).
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.native_stack import NativeStacks

# fixtures/cases/bug-pytorch-149153-commabort-hang-nccl2251 (pytorch/pytorch#149153): lldb, attached with SIGSTOP
LLDB_ABORT = (
    "  thread #16, name = 'python', stop reason = signal SIGSTOP\n"
    "    frame #0: 0x00007fb0b7f0792d libc.so.6`syscall + 29\n"
    "    frame #1: 0x00007fb08faef142 libstdc++.so.6`std::__atomic_futex_unsigned_base::_M_futex_wait_until_steady("
    "this=<unavailable>, __addr=0x00007fac98000b00, __val=2147483648, __has_timeout=true, __s=<unavailable>, "
    "__ns=(__r = 711393434)) at futex.cc:217:18\n"
    "    frame #2: 0x00007fb090db0b85 libtorch_cuda.so`c10d::ProcessGroupNCCL::waitForFutureOrTimeout(std::future<bool>&, "
    "std::chrono::duration<long, std::ratio<1l, 1000l>> const&, std::__cxx11::basic_string<char, "
    "std::char_traits<char>, std::allocator<char>> const&, c10d::C10dLoggingData&, bool) + 725\n"
    "    frame #3: 0x00007fb090db1068 libtorch_cuda.so`c10d::ProcessGroupNCCL::abort() + 664\n")
# fixtures/cases/bug-nccl-992-commabort-multithread-nccl2181 (NVIDIA/nccl#992): py-spy dump --native
PYSPY_ABORT = (
    'Thread 3438296 (idle): "Thread-41"\n'
    "    0x155555277197 (libc.so.6)\n"
    "    0x15555527c6a4 (libc.so.6)\n"
    "    commFree (init.cc:180)\n"
    "    commCleanup (init.cc:1731)\n"
    "    commReclaim (init.cc:1862)\n"
    "    ncclCommAbort (init.cc:1931)\n"
    "    c10d::NCCLComm::ncclCommAbort (libtorch_cuda.so)\n"
    "    c10d::abortCommsFromMap (libtorch_cuda.so)\n"
    "    c10d::ProcessGroupNCCL::abort (libtorch_cuda.so)\n")
# fixtures/probes/native_stack (NVIDIA/nccl#750): gdb, a process stuck launching NCCL's kernel
GDB_LAUNCH = (
    "#10 0x00007fec9ae67f06 in cudaLaunchKernel () from /lib/libcudart.so.11.4.108\n"
    "#14 0x00007fecdf7c5301 in ncclGroupEnd () from\n")
# sgl-project/sglang#1693: the watchdog's C++ exception trace (thrown, not waiting)
THROWN = (
    "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):\n"
    "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
    "std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f3b6e71a8d2 in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)\n"
    "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (0x7f3b6e7236fc in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)\n")


def stacks(text: str) -> list[tuple[str, str, str, int]]:
    return [(f.function, f.waits_in, f.signal, f.origin.line)
            for f in parse_lines(NativeStacks, text, source="stack.txt", node="") if f.KIND == "stack.native"]


def test_lldb_abort_hang_names_the_caller_of_the_waiting_helper() -> None:
    assert stacks(LLDB_ABORT) == [("c10d::ProcessGroupNCCL::abort", "comm_teardown", "", 5)]


def test_pyspy_native_rows_name_the_innermost_nccl_call_once() -> None:
    assert stacks(PYSPY_ABORT) == [("ncclCommAbort", "comm_teardown", "", 7)]


def test_gdb_frames_are_read_as_before() -> None:
    assert stacks(GDB_LAUNCH) == [("cudaLaunchKernel", "kernel_launch", "", 1)]


def test_a_thrown_exception_trace_is_not_a_live_stack() -> None:
    assert stacks(THROWN) == []


def test_a_crash_stop_in_lldb_keeps_its_signal() -> None:
    crashed = LLDB_ABORT.replace("signal SIGSTOP", "signal SIGSEGV")
    assert stacks(crashed) == [("c10d::ProcessGroupNCCL::abort", "comm_teardown", "SIGSEGV", 5)]
