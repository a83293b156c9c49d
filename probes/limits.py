"""Locked-memory limit (ulimit -l / ulimit -a / limits.conf), needed in full for RDMA registration.

Sample input:
    max locked memory       (kbytes, -l) 64
    $ ulimit -l
    8192
"""
from __future__ import annotations


from doctor.facts.env import Ulimit
from doctor.probing.contract import DocumentProbe, LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_ULIMIT_A = lazy_compile(r"max locked memory\s+\(kbytes, -l\)\s+(?P<v>\d+|unlimited)")
_VERBS_WARNING = lazy_compile(r"RLIMIT_MEMLOCK is (?P<bytes>\d+) bytes")
# UCX: "... Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)"; DAPL: "RLIMIT_MEMLOCK too small"
_UCX_HINT = lazy_compile(r"max locked memory \(ulimit -l\) to 'unlimited' \(current: (?P<kb>\d+) kbytes\)")
_DAPL = lazy_compile(r"RLIMIT_MEMLOCK too small")
# Open MPI's openib BTL help text: "The OpenIB BTL failed to initialize while trying to allocate some / locked memory.
# ..." (1.6 wraps it "The OpenFabrics (openib) BTL failed to initialize while trying to / allocate some locked
# memory.") and, a few lines on, its field "Memlock limit: 32767" (the limit that stopped it, in KiB; Open MPI FAQ)
_OPENIB = "BTL failed to initialize while trying to"
_OPENIB_LIMIT = lazy_compile(r"^\s*Memlock limit:\s+(?P<kb>\d+|unlimited)\s*$")
_BARE = lazy_compile(r"^\s*(?P<v>\d+|unlimited)\s*$")


def _kb(value: str) -> int:
    return -1 if value == "unlimited" else int(value)


class MemlockLines(LineProbe):
    name = "memlock"
    yields = ("sys.ulimit",)
    triggers = ("max locked memory", "ulimit -l", "RLIMIT_MEMLOCK", _OPENIB, "Memlock limit:")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.asked = 0
        self.openib = False      # inside Open MPI's openib locked-memory help text: its "Memlock limit:" field follows

    def feed(self, line_no: int, line: str) -> None:
        if _OPENIB in line:
            self.openib = True
        elif self.openib and (limit := _OPENIB_LIMIT.match(line)):
            self.openib = False   # Open MPI names the limit it hit: the one stopping it
            self.ctx.emit(Ulimit, line_no, line, name="memlock", kb=_kb(limit["kb"]), warned=True)
            return
        m = _ULIMIT_A.search(line)
        if m:
            self.ctx.emit(Ulimit, line_no, line, name="memlock", kb=_kb(m["v"]))
        m = _VERBS_WARNING.search(line)
        if m:   # libibverbs: "Warning: RLIMIT_MEMLOCK is 65536 bytes. This will severely limit memory registrations."
            self.ctx.emit(Ulimit, line_no, line, name="memlock", kb=int(m["bytes"]) // 1024, warned=True)
        m = _UCX_HINT.search(line)
        if m:   # the library names the limit: it is the one stopping it
            self.ctx.emit(Ulimit, line_no, line, name="memlock", kb=int(m["kb"]), warned=True)
        elif _DAPL.search(line):   # DAPL does not print the value: 0 stands for "finite, value not shown"
            self.ctx.emit(Ulimit, line_no, line, name="memlock", kb=0, warned=True)


class MemlockValue(DocumentProbe):
    """A file holding only the answer of `ulimit -l`: recognised by a bare value and a name that says so."""

    name = "memlock_value"
    yields = ("sys.ulimit",)
    live = ("sh", "-c", "ulimit -l")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return bool(_BARE.match(head.strip())) and len(head.strip().splitlines()) == 1

    def parse(self, text: str, ctx: ParseContext) -> None:
        if not any(word in ctx.source.lower() for word in ("ulimit", "memlock", "limit")):
            return
        m = _BARE.match(text.strip())
        if m:
            ctx.emit(Ulimit, 1, text.strip(), name="memlock", kb=_kb(m["v"]))
