"""Which node pairs to test, and what the results say: a slow node or one slow link, without testing all pairs.

Round 1 pairs each node with its ring neighbours (0-1, 2-3, ... at once, then 1-2, 3-4, ..., N-1 - 0): N
tests in two or three sub-rounds of disjoint pairs. Each pair well below the healthy baseline is then
split in two: each end is tested against a node known to be healthy. If one end is slow with everyone,
that node (its NIC, its link) is the culprit; if both ends are fast elsewhere, the link between them is.
That is N + 2 per slow pair tests in at most five sub-rounds, where all pairs would be N(N-1)/2; with two
nodes there is one pair and nothing to compare it with (only an expected figure can judge it).

Pure functions over {(a, b): GB/s}, with a < b node indexes; doctor/cluster/pairwise.py runs the tests and
doctor/aggregate_cluster.py reads the verdicts from the gathered cluster.pair_bw facts with the same code.
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import median

SLOW_RATIO = 0.3          # a pair below 30% of the healthy baseline is slow (a 25G port among 100G ones; not a 2x dip)
Pair = tuple[int, int]


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def first_round(nodes: int) -> list[list[Pair]]:
    """Each node with its two ring neighbours (0-1, 2-3, ... then 1-2, 3-4, ..., N-1 - 0): N pairs in 2-3 sub-rounds
    of disjoint pairs, so every node is measured with two partners and one bad node cannot hide the baseline."""
    if nodes < 2:
        return []
    if nodes == 2:
        return [[(0, 1)]]
    ring = [pair(i, (i + 1) % nodes) for i in range(nodes)]
    return schedule(ring[0::2] + ring[1::2])


def baseline(results: dict[Pair, float]) -> float:
    """What a healthy pair reaches: the median over nodes of each node's best pair (robust to a minority of bad nodes)."""
    best: dict[int, float] = {}
    for (a, b), gbs in results.items():
        for n in (a, b):
            best[n] = max(best.get(n, 0.0), gbs)
    return median(best.values()) if best else 0.0


def slow_pairs(results: dict[Pair, float]) -> list[Pair]:
    if len(results) < 2:
        return []          # one pair has nothing to be compared with
    base = baseline(results)
    return sorted(p for p, gbs in results.items() if gbs < SLOW_RATIO * base)


def follow_ups(nodes: int, results: dict[Pair, float]) -> list[list[Pair]]:
    """For each slow pair, its two ends against healthy nodes, as sub-rounds of disjoint untested pairs."""
    slow = slow_pairs(results)
    suspects = {n for p in slow for n in p}
    healthy = [n for n in range(nodes) if n not in suspects]
    wanted: list[Pair] = []
    for a, b in slow:
        for end, other in ((a, b), (b, a)):
            if any(pair(end, h) in results or pair(end, h) in wanted for h in healthy if h != other):
                continue
            helper = next((h for h in healthy if h != other), None)
            if helper is not None:
                wanted.append(pair(end, helper))
    return schedule(wanted)


def schedule(pairs: list[Pair]) -> list[list[Pair]]:
    """Greedy split into sub-rounds where no node is in two pairs."""
    rounds: list[list[Pair]] = []
    for p in pairs:
        for r in rounds:
            if not any(set(p) & set(q) for q in r):
                r.append(p)
                break
        else:
            rounds.append([p])
    return rounds


@dataclass(frozen=True)
class Verdict:
    scope: str            # node | link
    node: int
    peer: int             # -1 for a node
    gbs: float            # the best rate seen through it
    baseline: float
    tests: int


def verdicts(results: dict[Pair, float]) -> list[Verdict]:
    """Slow nodes (slow with every partner, at least one of them healthy) and slow links (both ends fast elsewhere)."""
    slow = set(slow_pairs(results))
    if not slow:
        return []
    base = baseline(results)
    out: list[Verdict] = []
    by_node: dict[int, list[Pair]] = {}
    for p in results:
        for n in p:
            by_node.setdefault(n, []).append(p)
    bad_nodes = set()
    for n, pairs in sorted(by_node.items()):
        others_fine = [p for p in pairs if any(_fast_elsewhere(m, p, results, slow) for m in p if m != n)]
        if all(p in slow for p in pairs) and others_fine:
            bad_nodes.add(n)
            out.append(Verdict("node", n, -1, max(results[p] for p in pairs), base, len(pairs)))
    for a, b in sorted(slow):
        if a in bad_nodes or b in bad_nodes:
            continue
        if _fast_elsewhere(a, (a, b), results, slow) and _fast_elsewhere(b, (a, b), results, slow):
            out.append(Verdict("link", a, b, results[(a, b)], base, 1))
    return out


def _fast_elsewhere(node: int, exclude: Pair, results: dict[Pair, float], slow: set[Pair]) -> bool:
    return any(node in p and p != exclude and p not in slow for p in results)
