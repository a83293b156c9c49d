"""PyTorch's desync report names the rank that never joined the next collective (issue 12, held-out batch FX).

Real text: stas00/the-art-of-debugging's collective_mismatch.py run with TORCH_NCCL_DESYNC_DEBUG=1
(fixtures/cases/desync-artofdebugging-collective-mismatch-extra-allreduce): rank 0 issues one extra all_reduce.
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.collectives import Collectives

CASE = (Path(__file__).resolve().parents[2] / "fixtures" / "cases"
        / "desync-artofdebugging-collective-mismatch-extra-allreduce" / "input")
STUCK_INSIDE = "     [1] joined but didn't finish collective #3 (count from 1)\n"   # the report's other form


def _mismatches(text: str) -> list:
    return [f for f in parse_lines(Collectives, text) if f.KIND == "collective.mismatch"]


def test_the_rank_that_did_not_join_is_named_with_the_collective_it_skipped() -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(CASE.iterdir()))
    assert [(f.rank, f.seq) for f in _mismatches(text)] == [(1, 3)]


def test_a_rank_stuck_inside_the_collective_is_no_mismatch() -> None:
    assert _mismatches(STUCK_INSIDE) == []


def test_the_report_reads_as_ranks_running_different_collectives() -> None:
    report = diagnose_files([str(CASE)])
    assert report.diagnoses[0].cause == "collective_desync"
    assert report.diagnoses[0].confidence >= 0.5
