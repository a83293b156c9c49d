"""Facts from training logs: per-rank step timing (data loading, compute, communication)."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class TrainSteps(Fact):
    """Median per-step timings of one rank's training log, in seconds (-1 when the log does not say)."""

    KIND = "train.steps"
    steps: int = 0
    step_s: float = -1
    data_s: float = -1
    data_max_s: float = -1         # the longest wait for data after the first step
    compute_s: float = -1
    comm_s: float = -1
    data_share: float = -1         # data_s / step_s
    comm_share: float = -1         # comm_s / step_s


@fact
class SlowRank(Fact):
    """A rank whose own work per step is much longer than the other ranks' (computed by aggregation)."""

    KIND = "train.slow_rank"
    own_s: float = -1              # this rank's compute (or step minus wait) per step
    others_s: float = -1           # median of the other ranks
    ratio: float = -1
