"""Which nodes fail more jobs than their share: a one-sided Poisson test per node against the failures its own
jobs lead one to expect, Holm-corrected over all nodes.

A job's failure is attributed to the few nodes its evidence names, so a node's chance to carry one depends on
the size of the jobs it runs (one of 2 nodes in a 2-node job, one of 16 in a 16-node job). The fleet rate is
therefore taken per job-size stratum (1, 2, 3-4, 5-8, ... nodes): r_s = failures / node-jobs in stratum s,
counted over the other nodes only (leave one out: a bad node's own excess must not raise its own bar).
A node's expected failures are mu = sum over its jobs of r_s(job); its p-value is P(X >= k), X ~ Poisson(mu),
k its failures. (The exact count is Poisson-binomial; Poisson has the larger variance, so the test is on the
conservative side.) Holm's step-down keeps the family-wise error at alpha; a suspect also needs at least
MIN_FAILURES failures. A node with 3 failures in 4 jobs at a 2% rate is suspect (p = 8e-5); 3 in 300 is not
(p = 0.94); a busy node running a large share of small jobs, failing at its strata's rates, is not.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

ALPHA = 0.05
MIN_FAILURES = 2


@dataclass(frozen=True)
class NodeVerdict:
    node: str
    jobs: int
    failures: int
    expected: float         # failures its jobs lead one to expect at the fleet's per-size rates
    p_value: float          # one-sided Poisson, raw
    adjusted: float         # Holm-adjusted
    suspect: bool


def stratum(size: int) -> int:
    """Job-size stratum: 1, 2, 3-4, 5-8, 9-16, ... nodes -> 0, 1, 2, 3, 4, ..."""
    return max(0, (size - 1).bit_length())


def poisson_sf(k: int, mu: float) -> float:
    """P(X >= k), X ~ Poisson(mu): the first term in log space, the rest by the ratio of successive terms,
    stopped once past the mode they no longer change the sum."""
    if k <= 0:
        return 1.0
    if mu <= 0.0:
        return 0.0
    term = math.exp(k * math.log(mu) - mu - math.lgamma(k + 1))
    total = term
    i = k
    while True:
        i += 1
        term *= mu / i
        total += term
        if i > mu and term < total * 1e-17:
            return min(1.0, total)


def judge(counts: dict[str, tuple[int, int, float]], alpha: float = ALPHA) -> list[NodeVerdict]:
    """counts: node -> (jobs, failures, expected failures). Verdicts ordered most suspect first."""
    raw = {node: poisson_sf(f, mu) for node, (_, f, mu) in counts.items()}
    adjusted = holm(raw)
    verdicts = [NodeVerdict(node, j, f, round(mu, 3), raw[node], adjusted[node],
                            adjusted[node] < alpha and f >= MIN_FAILURES) for node, (j, f, mu) in counts.items()]
    return sorted(verdicts, key=lambda v: (v.adjusted, v.p_value, -v.failures, v.node))


def holm(p_values: dict[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values (monotone step-down)."""
    m = len(p_values)
    out: dict[str, float] = {}
    running = 0.0
    for i, (name, p) in enumerate(sorted(p_values.items(), key=lambda item: (item[1], item[0]))):
        running = max(running, min(1.0, (m - i) * p))
        out[name] = running
    return out
