"""The pair plan localises one slow node or one slow link with about N tests, not N(N-1)/2."""
from __future__ import annotations

import pytest

from doctor.cluster.pairing import Pair, first_round, follow_ups, verdicts


def simulate(n: int, slow_node: int | None = None, slow_link: Pair | None = None) -> tuple[dict[Pair, float], int]:
    def rate(p: Pair) -> float:
        if slow_node is not None and slow_node in p:
            return 0.002
        return 0.001 if p == slow_link else 1.0 + 0.1 * (p[0] % 3)   # healthy pairs vary a little
    results: dict[Pair, float] = {}
    rounds = 0
    for plan in (first_round(n), None):
        for sub in plan if plan is not None else follow_ups(n, results):
            assert len({x for p in sub for x in p}) == 2 * len(sub), "a node in two pairs of one sub-round"
            results.update({p: rate(p) for p in sub})
            rounds += 1
    return results, rounds


@pytest.mark.parametrize("n", [3, 4, 5, 8, 16, 33])
def test_healthy_nodes_convict_nothing(n: int) -> None:
    results, _ = simulate(n)
    assert verdicts(results) == []
    assert len(results) == n


@pytest.mark.parametrize("n", [3, 4, 5, 8, 16, 33])
def test_every_slow_node_is_named_alone(n: int) -> None:
    for bad in range(n):
        results, rounds = simulate(n, slow_node=bad)
        assert [(v.scope, v.node) for v in verdicts(results)] == [("node", bad)]
        assert len(results) <= n + 2 and rounds <= 5
        if n >= 5:
            assert len(results) < n * (n - 1) // 2


@pytest.mark.parametrize("n,link", [(3, (0, 1)), (4, (1, 2)), (8, (0, 7)), (16, (5, 6))])
def test_a_slow_link_is_told_from_a_slow_node(n: int, link: Pair) -> None:
    results, _ = simulate(n, slow_link=link)
    assert [(v.scope, v.node, v.peer) for v in verdicts(results)] == [("link", *link)]


def test_two_nodes_cannot_be_told_apart() -> None:
    assert first_round(2) == [[(0, 1)]]
    assert verdicts({(0, 1): 0.001}) == []
