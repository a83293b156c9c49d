"""Derived facts about NCCL's init: a log that stops inside communicator init with nothing after it, and two ranks
of one communicator on one GPU.

An engineer reading an NCCL_DEBUG=INFO log of a hung job looks first at its last line: output that ends during
bootstrap, topology or channel setup, with no "Init COMPLETE", no WARN and no error after it, is a job stuck in
NCCL init (or a paste cut there). Listed in doctor.aggregate.AGGREGATORS.
"""
from __future__ import annotations

from doctor.facts import Fact
from doctor.facts.launch import DuplicateGpu
from doctor.facts.nccl import NcclCommRank, NcclInitUnfinished, NcclLogEnd

FINISHED = ("complete", "running")
MIN_LINES = 5                  # a quoted line or two is an excerpt, not a log that stopped
# Facts that show the job went on, or failed with a line of its own: then the log did not stop in NCCL init.
WENT_ON = frozenset({"log.error_line", "train.steps", "trace.step", "bench.collective", "bench.bandwidth",
                     "profile.kernels", "gpu.utilisation", "oom.event", "collective.timeout"})


def init_unfinished(facts: list[Fact]) -> list[Fact]:
    """One fact per node whose NCCL output stops before init completed, when no node's completed and nothing went on."""
    ends = [f for f in facts if isinstance(f, NcclLogEnd)]
    if not ends or any(f.stage in FINISHED for f in ends) or any(f.KIND in WENT_ON for f in facts):
        return []
    nodes = len({f.node for f in ends})
    return [NcclInitUnfinished(node=f.node, origin=f.origin, stage=f.stage, info_lines=f.info_lines, nodes=nodes)
            for f in ends if f.info_lines >= MIN_LINES]


def duplicate_gpus(facts: list[Fact]) -> list[Fact]:
    """Two ranks of one communicator (one commId) on one host's GPU (one busId), from their init lines: what NCCL
    refuses as "Duplicate GPU detected" when that WARN itself is not in the input (TensorRT-LLM#9263). A line without
    its host or its commId says nothing here: bus ids repeat across hosts, and one process may be rank 0 of one
    communicator and rank 1 of another on the same GPU."""
    first: dict[tuple[str, str, str], NcclCommRank] = {}
    out: list[Fact] = []
    for f in facts:
        if not isinstance(f, NcclCommRank) or not f.node or not f.comm_id:
            continue
        other = first.setdefault((f.node, f.comm_id, f.bus_id), f)
        if other.comm_rank != f.comm_rank:
            out.append(DuplicateGpu(node=f.node, origin=f.origin, rank_a=min(other.comm_rank, f.comm_rank),
                                    rank_b=max(other.comm_rank, f.comm_rank), bus_id=f.bus_id))
    return out
