"""An nccl-tests table pasted bare: no device table, no NCCL_DEBUG lines, its '# Avg bus bandwidth' printed without
the '#' (Markdown renders a line opening with '# ' as a heading). What it still says: it finished, and how many ranks
an all_reduce had (busbw = algbw x 2(n-1)/n, nccl-tests' PERFORMANCE.md). Texts verbatim from
fixtures/cases/ib-not-used-skypilot-coreweave-h200-no-network-tier (SkyPilot's CoreWeave guide, the run without
InfiniBand) and the goldens of fixtures/probes/nccl_tests."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from doctor_cli import REPO
from probes.nccl_tests import NcclTests, ranks_from_factor

SKYPILOT = REPO / "fixtures/cases/ib-not-used-skypilot-coreweave-h200-no-network-tier/input/nccl_tests.log"


def bench(text: str):
    (fact,) = [f for f in parse_lines(NcclTests, text, source="nccl_tests.log", node="") if f.KIND == "bench.collective"]
    return fact


def test_a_summary_without_its_hash_ends_the_run() -> None:
    fact = bench(SKYPILOT.read_text(encoding="utf-8"))
    assert fact.complete and fact.avg_busbw == 3.7478 and fact.results == 5


def test_sixteen_ranks_are_read_from_the_factor_and_make_the_run_multi_node() -> None:
    fact = bench(SKYPILOT.read_text(encoding="utf-8"))
    assert (fact.nranks, fact.multi_node) == (16, True)


def test_the_factor_names_no_rank_count_where_rows_disagree_or_it_is_not_all_reduce() -> None:
    assert ranks_from_factor([1.0, 1.0]) == -1            # reduce or broadcast: busbw = algbw
    assert ranks_from_factor([0.94, 0.94]) == -1          # reduce_scatter of 16: (n-1)/n
    assert ranks_from_factor([1.5, 1.75]) == -1           # rows that disagree
    assert ranks_from_factor([1.93]) == -1                # between 28 and 29 ranks: no whole number
    assert ranks_from_factor([3.73 / 1.99, 3.77 / 2.01]) == 16


def test_a_prose_mention_of_the_summary_is_not_one() -> None:
    text = "the Avg bus bandwidth : 3.7 we saw was low\n"
    assert not [f for f in parse_lines(NcclTests, text, source="notes.txt", node="") if f.KIND == "bench.collective"]
