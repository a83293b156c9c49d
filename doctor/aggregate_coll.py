"""Derived facts from NCCL's per-call COLL lines: processes that called different collectives at one opCount.

Every rank of a communicator issues the same collectives in the same order, each with the same count, datatype
and (for Broadcast/Reduce) root; NCCL numbers them per communicator (opCount). Two processes whose calls at one
opCount of a communicator of one size differ have diverged: the collective can never complete (a hang) or
completes on wrong data. Send/Recv pair different arguments by design and are left out. A process that used
several communicators of one size in the input cannot be lined up by size alone and is left out too.
Listed in doctor.aggregate.AGGREGATORS.
"""
from __future__ import annotations

from collections import defaultdict

from doctor.facts import Fact
from doctor.facts.collective import NcclCollCall, NcclCollMismatch

COLLECTIVES = frozenset({"AllReduce", "Broadcast", "Reduce", "AllGather", "ReduceScatter"})
ROOTED = frozenset({"Broadcast", "Reduce"})


def _signature(call: NcclCollCall) -> tuple:
    return call.op, call.count, call.datatype, call.root if call.op in ROOTED else 0


def coll_mismatch(facts: list[Fact]) -> list[Fact]:
    """The earliest opCount at which processes' collective calls differ, one fact for the odd call out."""
    slots: dict[tuple[int, str], dict[str, NcclCollCall]] = defaultdict(dict)
    for f in facts:
        if isinstance(f, NcclCollCall) and f.comms == 1 and f.op in COLLECTIVES:
            slots[(f.nranks, f.opcount)].setdefault(f.process, f)
    for (nranks, opcount), calls in sorted(slots.items(), key=lambda kv: (kv[0][0], int(kv[0][1], 16))):
        groups: dict[tuple, list[NcclCollCall]] = defaultdict(list)
        for process in sorted(calls):
            groups[_signature(calls[process])].append(calls[process])
        if len(groups) < 2:
            continue
        ordered = sorted(groups.values(), key=len)
        odd, usual = ordered[0][0], ordered[-1][0]
        return [NcclCollMismatch(node=odd.node, rank=odd.rank, origin=odd.origin, process=odd.process,
                                 opcount=opcount, nranks=nranks, op=odd.op, count=odd.count,
                                 other_process=usual.process, other_op=usual.op, other_count=usual.count,
                                 processes=len(calls))]
    return []
