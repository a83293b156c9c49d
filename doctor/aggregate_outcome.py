"""A run that records its own success: the failure-looking lines in its log did not end it.

MLPerf's logger closes every run with `run_stop` and a status (probes/job_outcome.py reads it as job.outcome). In a
file whose run says "success", the signs a failure would leave (NCCL WARNs from the proxy at teardown, a heartbeat
monitor's traceback when rank 0 exits first, a plugin warning at init that the job went on from) are lines the run
survived: they show no crash, hang or NCCL error, and the maintainers say as much of the exit-time ones ("thrown only
right before the whole process exits ... harmless", pytorch#2530; the proxy WARNs after a collective timeout are
"not the root cause", nccl#1610). They are set aside as log.survived facts, which the report lists; nothing else in
the file changes (versions, topology, measurements stay).

Only the file that holds the record: another file of the same upload (another run, another rank's log) is read as it
is.
"""
from __future__ import annotations

from doctor.facts import Fact
from doctor.facts.logline import SurvivedLine

# Fact kinds that show a failure (judgement/context.py SYMPTOM_SIGNS, measurements aside) and the error lines;
# tests/test_survived_lines.py keeps this table and that one in step.
FAILURE_KINDS = frozenset({
    "log.error_line", "oom.event", "memory.snapshot", "collective.timeout", "collective.stalled",
    "collective.progress", "stack.native", "stack.process", "rdzv.timeout", "net.connect_error", "net.resolve_error",
    "nccl.error", "nccl.warn", "sys.call_failed", "net.ifname_error", "cuda.error", "gpu.fault", "p2p.copy_corrupted",
    "worker.bus_error", "net.bind_error", "launch.config_error", "launch.remote_error", "trace.frame",
    "nccl.init_unfinished",
    # not a symptom but a failure's evidence: a peer's connection reset. After the record of success it is the store's
    # server (rank 0) gone first, read by the other ranks' heartbeat monitors ("recvValue failed ... Connection reset
    # by peer", "maybe TCPStore server has shut down too early"): teardown order, no peer lost mid-run
    "collective.peer_lost",
})


def survived(facts: list[Fact]) -> list[Fact]:
    """facts, with the failure signs of a file whose run recorded its success replaced by log.survived facts."""
    done = {f.origin.source for f in facts if f.KIND == "job.outcome" and getattr(f, "status", "") == "success"}
    if not done:
        return facts
    kept: list[Fact] = []
    set_aside: list[Fact] = []
    for f in facts:
        if f.KIND in FAILURE_KINDS and f.origin.source in done:
            set_aside.append(SurvivedLine(origin=f.origin, node=f.node, rank=f.rank, read_as=f.KIND))
        else:
            kept.append(f)
    return kept + set_aside
