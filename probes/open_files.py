"""Open-file limits and the errors of running out: EMFILE from Python, sockets, NCCL and DataLoader workers.

Sample input:
    open files                          (-n) 1024
    nofiles              1024                    (dash's ulimit -a)
    OSError: [Errno 24] Too many open files
    RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code
    misc/socket.cc:480 NCCL WARN socketStartConnect: socket() failed : Too many open files
    "COULD NOT CREATE A LOGGINGFILE .... Could not create logging file: Too may open files"   (Ray's glog, sic)
    E1016 17:14:42.006647171   33721 tcp_server_posix.cc:213]    Failed accept4: Too
     many open files                  (gRPC's line as a terminal wrapped it: the tail alone names EMFILE)
    RuntimeError: received 0 items of ancdata     (multiprocessing's recvfds(): a DataLoader worker's descriptor dropped)
    [m2001:16147] mca_oob_tcp_accept: accept() failed with errno 24.     (Open MPI 1.x: EMFILE by its number)
    raise RuntimeError('received %d items of ancdata' %        (the same raise, its source line, in a cut traceback)
    ORTE_ERROR_LOG: The system limit on number of pipes a process can open was reached   (Open MPI 1.x's error codes)
"""
from __future__ import annotations

from doctor.facts.env import Ulimit
from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_ULIMIT_N = lazy_compile(r"open files\s+\(-n\)\s+(?P<v>\d+|unlimited)|^nofiles\s+(?P<dash>\d+|unlimited)\s*$")
_EMFILE = "(?:Too many open files|Too may open files)"    # the second: Ray's logging-file error, as two reports print it
_CALL = lazy_compile(r"(?P<call>socket|accept4?|open|pipe|epoll_create1?|dup2?|shm_open)\(?\)?[^\n]{0,40}?" + _EMFILE)
_OUT_OF_FILES = lazy_compile(_EMFILE + "|EMFILE")
# strerror(EMFILE) cut after "Too" by a terminal or a pager: the next line starts with its tail, which nothing
# else prints at the start of a line
_WRAPPED_TAIL = lazy_compile(r"^\s*many open files\s*$")
# EMFILE by its number (24 on Linux and the BSDs), as C code that prints errno raw says it: Open MPI 1.x's
# "mca_oob_tcp_accept: accept() failed with errno 24." (users list 2006/11/2214: 192 processes, a 1024-file limit)
_EMFILE_NUMBER = lazy_compile(r"\b(?P<call>accept4?|socket|open|pipe|dup2?)\(\)[^\n]{0,20}?\berrno\s*[=:]?\s*24\b")
# A worker sends each shared tensor's descriptor over a Unix socket (the file_descriptor sharing strategy); when the
# receiving process has no descriptor left the kernel drops it from the message (MSG_CTRUNC) and Python's
# multiprocessing.reduction.recvfds() raises this - PyTorch's own diagnosis (PR 34768, the fix of pytorch#973) now
# prints "Too many open files" for it. Only "0 items": the descriptor that should have come was lost. A traceback cut
# before its message still shows the frame's source line, `raise RuntimeError('received %d items of ancdata' % ...`:
# recvfds() reaches that raise only when the descriptor did not arrive (one is always sent).
# Open MPI 1.x names EMFILE by its own error codes, ORTE_ERR_SYS_LIMITS_PIPES and _SOCKETS: "ORTE_ERROR_LOG: The system
# limit on number of pipes a process can open was reached", "... network connections ... in file oob_tcp.c" (users
# list 2011/06/16979: 86 slots under SGE, fixed by raising the nofile limit), and mpirun's help text after them, "Error:
# system limit exceeded on number of network connections that can be open". Mail clients wrap the first after "number"
# or "limit" (users list 2009/08/10249, 2010/03/12215): the words from "of pipes" on are read wherever the line starts.
# Its "children" twin is the process limit, not read.
_ORTE_LIMIT = lazy_compile(r"\bof (?P<what>pipes|network connections) a process can open was reached"
                           r"|system limit exceeded on number of (?P<help>pipes|network connections)")
_ANCDATA = lazy_compile(r"\breceived (?:0|%d) items of ancdata\b")


class OpenFiles(LineProbe):
    name = "open_files"
    yields = ("sys.ulimit", "sys.call_failed")
    triggers = ("open files", "nofiles", "Too many open files", "Too may open files", "EMFILE", "items of ancdata",
                "errno 24", "errno=24", "errno = 24", "a process can open", "system limit exceeded on number of")   # "open files" also
    # brings the tail of a wrapped "Too many open files" (_WRAPPED_TAIL)

    def feed(self, line_no: int, line: str) -> None:
        m = _ULIMIT_N.search(line)
        if m:     # kb holds the count of files for nofile
            value = m["v"] or m["dash"]          # bash: 'open files (-n) 1024'; dash: 'nofiles 1024'
            self.ctx.emit(Ulimit, line_no, line, name="nofile", kb=-1 if value == "unlimited" else int(value))
            return
        if "24" in line and (m := _EMFILE_NUMBER.search(line)):
            self.ctx.emit(CallFailed, line_no, line, call=m["call"], errno="EMFILE", resource="file descriptors")
            return
        if ("system limit" in line or "a process can open" in line) and (m := _ORTE_LIMIT.search(line)):
            self.ctx.emit(CallFailed, line_no, line, call="pipe" if (m["what"] or m["help"]) == "pipes" else "socket",
                          errno="EMFILE", resource="file descriptors")
            return
        if _ANCDATA.search(line):
            self.ctx.emit(CallFailed, line_no, line, call="recvmsg", errno="EMFILE", resource="file descriptors")
            return
        if _OUT_OF_FILES.search(line) or _WRAPPED_TAIL.match(line):
            call = _CALL.search(line)
            self.ctx.emit(CallFailed, line_no, line, call=call["call"] if call else "open", errno="EMFILE",
                          resource="file descriptors")
