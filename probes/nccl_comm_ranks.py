"""NCCL's communicator-init lines: which rank of which communicator runs on which GPU.

Each rank prints one when it starts and one when it finishes creating a communicator (NCCL_DEBUG=INFO). NCCL refuses
two ranks of one communicator on one GPU ("Duplicate GPU detected"); where that WARN is not in the input, the init
lines still show it: two ranks, one commId, one host, one busId (doctor/aggregate_nccl.py, duplicate_gpus).

Sample input:
    host-0:42:982 [0] NCCL INFO ncclCommInitRank comm 0x7a12257c8780 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START
    host-0:43:43 [0] NCCL INFO ncclCommInitRank comm 0x397e3800 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START
    node1:2230:2230 [1] NCCL INFO comm 0x5581e8c0 rank 1 nranks 8 cudaDev 1 busId 1c000 - Init COMPLETE
"""
from __future__ import annotations

from doctor.facts.nccl import NcclCommRank
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_INIT = lazy_compile(r"\bcomm 0x[0-9a-f]+ rank (?P<rank>\d+) nranks (?P<nranks>\d+) cudaDev \d+(?: nvmlDev \d+)?"
                     r" busId (?P<bus>[0-9a-fA-F]+)(?: commId (?P<comm>0x[0-9a-f]+))?.*- Init (?:START|COMPLETE)")


class NcclCommRanks(LineProbe):
    name = "nccl_comm_ranks"
    yields = ("nccl.comm_rank",)
    triggers = ("- Init START", "- Init COMPLETE")

    def feed(self, line_no: int, line: str) -> None:
        m = _INIT.search(line)
        if m:     # START and COMPLETE of one rank give one fact (emit keeps identical facts once)
            self.ctx.emit(NcclCommRank, line_no, line, comm_id=m["comm"] or "", comm_rank=int(m["rank"]),
                          nranks=int(m["nranks"]), bus_id=m["bus"].lower())
