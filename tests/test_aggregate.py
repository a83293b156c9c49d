"""Derived facts: version skew across nodes, slow ranks, rank lag."""
from __future__ import annotations

from doctor.aggregate import rank_lag, slow_rank, version_skew
from doctor.rulebase.selftest import facts_from_dicts


def test_skew_needs_two_nodes_that_disagree() -> None:
    same_node = facts_from_dicts([{"kind": "pkg.version", "node": "a", "name": "torch", "version": "2.3.1+cu121"},
                                  {"kind": "pkg.version", "node": "a", "name": "torch", "version": "2.3.0"}])
    assert version_skew(same_node) == []
    two_nodes = facts_from_dicts([{"kind": "pkg.version", "node": "a", "name": "nccl", "version": "2.19.3"},
                                  {"kind": "pkg.version", "node": "b", "name": "nccl", "version": "2.20.5"}])
    (skew,) = version_skew(two_nodes)
    assert skew.name == "nccl" and skew.count == 2 and "2.20.5" in skew.versions


def test_build_suffix_only_counts_when_every_node_names_it() -> None:
    pip_vs_env = facts_from_dicts([{"kind": "pkg.version", "node": "a", "name": "torch", "version": "2.3.1+cu121"},
                                   {"kind": "pkg.version", "node": "b", "name": "torch", "version": "2.3.1"}])
    assert version_skew(pip_vs_env) == []
    builds = facts_from_dicts([{"kind": "pkg.version", "node": "a", "name": "torch", "version": "2.3.1+cu121"},
                               {"kind": "pkg.version", "node": "b", "name": "torch", "version": "2.3.1+cu118"}])
    assert len(version_skew(builds)) == 1


def test_slow_rank_is_named() -> None:
    facts = facts_from_dicts([{"kind": "train.steps", "rank": r, "steps": 5, "step_s": 0.6,
                               "compute_s": 0.6 if r == 2 else 0.2, "comm_s": 0.0 if r == 2 else 0.4}
                              for r in range(4)])
    (slow,) = slow_rank(facts)
    assert slow.rank == 2 and slow.ratio > 2.5


def test_balanced_ranks_have_no_straggler() -> None:
    facts = facts_from_dicts([{"kind": "train.steps", "rank": r, "steps": 5, "step_s": 0.6, "compute_s": 0.2 + r * 0.01}
                              for r in range(4)])
    assert slow_rank(facts) == []


def test_lagging_rank_from_watchdog_progress() -> None:
    facts = facts_from_dicts([{"kind": "collective.progress", "rank": 0, "last_enqueued": 4120, "last_completed": 4119},
                              {"kind": "collective.progress", "rank": 6, "last_enqueued": 4117, "last_completed": 4116}])
    (lag,) = rank_lag(facts)
    assert lag.rank == 6 and lag.seq == 4117 and lag.max_seq == 4120
