"""NCCL_DEBUG_SUBSYS=COLL lines: the collectives each process called, to set the ranks' calls side by side.

NCCL (and RCCL) print one INFO line per collective call with its position in the communicator's sequence (opCount,
hexadecimal), its arguments and the communicator's size. Every rank of a communicator calls the same collectives in
the same order with the same count, datatype and root; the maintainers' way to find a desync is to put the ranks'
lines for one opCount side by side (NVIDIA/nccl#147, #296; ROCm/rccl#429).

Sample input:
    h03r3n06:45006:45006 [0] NCCL INFO AllReduce: opCount 28c sendbuff 0x7f5dd32b2100 recvbuff 0x7f5dd32b2100 count 9984512 datatype 7 op 0 root 0 comm 0x55bef0201370 [nranks=4] stream 0x55bef0208bd0
    h03r3n06:45012:45012 [2] NCCL INFO AllGather: opCount 28c sendbuff 0x7f1fd894af00 recvbuff 0x7f1ed1c00100 count 59205120 datatype 0 op 0 root 0 comm 0x559c24b55610 [nranks=4] stream 0x559c248a3630
    LOG1.0.txt:learnfair062:32615:32615 [0] NCCL INFO Broadcast: opCount 0 sendbuff 0x7f88e4000000 recvbuff 0x7f88e4000000 count 25503912 datatype 6 op 0 root 0 comm 0x7f88e005a260 [nranks=8] stream 0x55f20d2f5db0
"""
from __future__ import annotations

from collections import defaultdict, deque

from doctor.facts.collective import NcclCollCall
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

# The writer prefix host:pid:tid [dev] may follow another prefix (grep's "file:", Ray's "(RayTrainWorker pid=..)").
_CALL = lazy_compile(r"(?P<host>[A-Za-z0-9][\w.\-]*):(?P<pid>\d+):\d+ \[\d+\] NCCL INFO (?P<op>[A-Za-z]+): "
                     r"opCount (?P<oc>[0-9a-fA-F]+) sendbuff \S+ recvbuff \S+ count (?P<count>\d+) "
                     r"datatype (?P<dt>\d+) op \d+ root (?P<root>-?\d+) comm (?P<comm>\S+) \[nranks=(?P<n>\d+)\]")
KEEP = 16      # the last calls of each communicator: where a hung job's ranks part is at the end of its log


class NcclCollLines(LineProbe):
    name = "nccl_coll"
    yields = ("nccl.coll_call",)
    triggers = ("opCount",)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self._calls: dict[tuple[str, str], deque] = defaultdict(lambda: deque(maxlen=KEEP))
        self._comms: dict[tuple[str, int], set[str]] = defaultdict(set)

    def feed(self, line_no: int, line: str) -> None:
        m = _CALL.search(line)
        if not m:
            return
        process, nranks = f"{m['host']}:{m['pid']}", int(m["n"])
        self._comms[(process, nranks)].add(m["comm"])
        self._calls[(process, m["comm"])].append((line_no, line, m))

    def finish(self) -> None:
        for (process, _comm), calls in self._calls.items():
            for line_no, line, m in calls:
                nranks = int(m["n"])
                self.ctx.emit(NcclCollCall, line_no, line, node=m["host"], process=process, op=m["op"],
                              opcount=m["oc"].lower(), count=int(m["count"]), datatype=int(m["dt"]),
                              root=int(m["root"]), nranks=nranks, comms=len(self._comms[(process, nranks)]))
