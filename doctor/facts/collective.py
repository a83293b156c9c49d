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
