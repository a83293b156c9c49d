"""Which nodes fail more jobs than their share: a one-sided exact binomial test per node, Holm-corrected.

For node i with n_i jobs and k_i failures attributed to it (a node-class cause whose evidence names it,
doctor/fleet/actions.py), the null hypothesis is the fleet's rate p = sum k / sum n. The p-value is
P(X >= k_i) for X ~ Binomial(n_i, p). Holm's step-down procedure over all nodes keeps the family-wise
error at alpha: a busy node with many jobs and failures at the fleet's rate is not flagged; a node with
3 failures in 4 jobs against a 2% fleet rate is. A suspect also needs at least MIN_FAILURES failures.
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
    p_value: float          # one-sided binomial, raw
    adjusted: float         # Holm-adjusted
    suspect: bool


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X >= k), X ~ Binomial(n, p): the first term in log space, the rest by the ratio of successive terms,
    stopped once past the mode they no longer change the sum (exact to double precision)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    ratio = p / (1.0 - p)
    term = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                    + k * math.log(p) + (n - k) * math.log1p(-p))
    total = term
    for i in range(k, n):
        term *= (n - i) / (i + 1) * ratio
        total += term
        if i > n * p and term < total * 1e-17:
            break
    return min(1.0, total)


def judge(counts: dict[str, tuple[int, int]], alpha: float = ALPHA) -> list[NodeVerdict]:
    """counts: node -> (jobs, failures). Verdicts ordered most suspect first."""
    total_jobs = sum(j for j, _ in counts.values())
    rate = sum(f for _, f in counts.values()) / total_jobs if total_jobs else 0.0
    raw = {node: binomial_sf(f, j, rate) for node, (j, f) in counts.items()}
    adjusted = holm(raw)
    verdicts = [NodeVerdict(node, j, f, raw[node], adjusted[node],
                            adjusted[node] < alpha and f >= MIN_FAILURES) for node, (j, f) in counts.items()]
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
