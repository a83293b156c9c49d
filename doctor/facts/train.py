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


@fact
class TrainSlowdown(Fact):
    """A run whose step time rose and stayed up at an unchanged global batch size (computed from one log's
    iteration lines): the median of the last steps against the median of the first ones."""

    KIND = "train.slowdown"
    steps: int = 0                 # iteration lines compared
    iteration: int = -1            # the first iteration of the slower stretch
    batch: int = -1                # global batch size, the same on every compared line
    before_s: float = -1
    after_s: float = -1
    ratio: float = -1              # after_s / before_s
