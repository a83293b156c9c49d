"""nccl-tests before 2019: all_gather printed no redop column and, per result column, the largest error where newer
versions count '#wrong'; the paste's summary lost its '#'. Text verbatim from fixtures/cases/known_software_bug-nccl-
tests-37 (nccl-tests#37, NCCL 2.2 on 8 GPUs: error 1e+00 in both columns, 'Out of bounds values : 2 FAILED'). The
row used to be read one column off: the in-place time 29169 as a count of wrong elements, busbw 1.0 GB/s."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from doctor_cli import REPO
from probes.nccl_tests import NcclTests

OLD = REPO / "fixtures/cases/known_software_bug-nccl-tests-37/input/all_gather_perf.txt"


def facts(text: str, kind: str) -> list:
    return [f for f in parse_lines(NcclTests, text, source="all_gather_perf.txt", node="") if f.KIND == kind]


def test_a_row_without_redop_column_is_read_in_its_own_columns() -> None:
    (row,) = facts(OLD.read_text(encoding="utf-8"), "bench.collective_size")
    assert (row.size, row.time_us, row.algbw, row.busbw) == (4294967296, 29122.0, 129.05, 129.05)


def test_a_largest_error_out_of_bounds_marks_each_column_wrong() -> None:
    (row,) = facts(OLD.read_text(encoding="utf-8"), "bench.collective_size")
    assert row.wrong == 2


def test_a_largest_error_within_bounds_is_no_wrong_result() -> None:
    text = OLD.read_text(encoding="utf-8").replace("1e+00", "1e-07")
    (row,) = facts(text, "bench.collective_size")
    assert row.wrong == 0


def test_the_summary_without_its_hash_counts_out_of_bounds_values() -> None:
    (bench,) = facts(OLD.read_text(encoding="utf-8"), "bench.collective")
    assert bench.wrong >= 2 and bench.complete and bench.avg_busbw == 128.942
