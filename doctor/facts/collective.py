"""Facts about collectives that did not complete: timeouts, mismatches, lost peers."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class CollectiveTimeout(Fact):
    """A collective or the watchdog timed out. backend: nccl | gloo."""

    KIND = "collective.timeout"
    backend: str = ""
    seq: int = -1
    op: str = ""
    timeout_s: float = -1
    watchdog: bool = False
    numel: int = -1                # NumelIn of the timed-out work (torch >= 2.1 prints it), -1 unknown


@fact
class CollectiveMismatch(Fact):
    """TORCH_DISTRIBUTED_DEBUG=DETAIL or the flight recorder saw ranks run different collectives."""

    KIND = "collective.mismatch"
    op: str = ""
    seq: int = -1


@fact
class PeerLost(Fact):
    """A peer closed or reset the connection during a collective, or a rank's process exited."""

    KIND = "collective.peer_lost"
    peer: str = ""
    reason: str = ""               # closed | reset | exited | remote_error


@fact
class RankLag(Fact):
    """A rank whose last collective sequence number lags the others (computed by aggregation)."""

    KIND = "collective.rank_lag"
    seq: int = -1
    max_seq: int = -1


@fact
class UnusedParameters(Fact):
    """DDP reduction did not finish: some parameters got no gradient."""

    KIND = "ddp.unused_parameters"


@fact
class CollectiveProgress(Fact):
    """What a rank's watchdog said it had enqueued and completed when it gave up."""

    KIND = "collective.progress"
    last_enqueued: int = -1
    last_completed: int = -1


@fact
class NcclCollCall(Fact):
    """A collective one process called, from NCCL_DEBUG_SUBSYS=COLL's '<Op>: opCount <hex> ... count <n> datatype <d>
    op <o> root <r> comm <ptr> [nranks=<N>]' (the last calls of each communicator of each process). comms: how many
    communicators of this size the process used in the input; with one, its calls line up with the other processes'
    calls of that size by opCount."""

    KIND = "nccl.coll_call"
    process: str = ""              # host:pid of the line's NCCL prefix
    op: str = ""                   # AllReduce, Broadcast, AllGather, ReduceScatter, Reduce, Send, Recv
    opcount: str = ""              # as NCCL prints it, hexadecimal
    count: int = -1
    datatype: int = -1
    root: int = -1
    nranks: int = -1
    comms: int = 0


@fact
class NcclCollMismatch(Fact):
    """Processes of one communicator size called different collectives at the same opCount, or the same collective
    with a different count, datatype or root (computed by aggregation from nccl.coll_call; the earliest opCount)."""

    KIND = "nccl.coll_mismatch"
    process: str = ""
    opcount: str = ""
    nranks: int = -1
    op: str = ""
    count: int = -1
    other_process: str = ""
    other_op: str = ""
    other_count: int = -1
    processes: int = 0             # processes whose call at that opCount the input shows
