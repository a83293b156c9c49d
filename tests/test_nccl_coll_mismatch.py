"""NCCL_DEBUG_SUBSYS=COLL lines set side by side: processes calling different collectives at one opCount."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate_coll import coll_mismatch
from doctor.probing.contract import parse_lines
from probes.nccl_coll import NcclCollLines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probes" / "nccl_coll"


def _mismatch(text: str) -> list:
    return coll_mismatch(parse_lines(NcclCollLines, text, source="t.log"))


def test_rccl_allreduce_against_allgather_at_one_opcount() -> None:
    found = _mismatch((FIXTURES / "rccl-429-allreduce-vs-allgather.txt").read_text())
    assert len(found) == 1
    m = found[0]
    assert (m.opcount, m.nranks, m.processes) == ("28c", 4, 2)
    assert {m.op, m.other_op} == {"AllReduce", "AllGather"}


def test_grep_prefixed_broadcasts_name_the_odd_rank() -> None:
    """Four processes broadcast 53 elements at opCount 0, one 25503912: that one is the odd call out."""
    m, = _mismatch((FIXTURES / "nccl-147-grep-broadcast-count.txt").read_text())
    assert (m.process, m.op, m.count) == ("learnfair062:32615", "Broadcast", 25503912)
    assert (m.other_count, m.processes, m.nranks) == (53, 5, 8)


def test_one_process_alone_is_no_mismatch() -> None:
    lines = (FIXTURES / "rccl-429-allreduce-vs-allgather.txt").read_text().splitlines()
    assert _mismatch("\n".join(lines[:2])) == []


def test_send_and_recv_are_not_compared() -> None:
    calls = parse_lines(NcclCollLines, (FIXTURES / "nccl-584-send-recv-pairs.txt").read_text(), source="t.log")
    assert {c.op for c in calls} == {"Send", "Recv"} and {c.comms for c in calls} == {2}
    assert coll_mismatch(calls) == []


def test_the_same_call_on_every_rank_is_no_mismatch() -> None:
    """Rank 0's own two lines given as two processes' calls (same op, count, datatype at each opCount)."""
    lines = (FIXTURES / "rccl-429-allreduce-vs-allgather.txt").read_text().splitlines()[:2]
    other = [line.replace("h03r3n06:45006:45006", "h03r3n07:45009:45009") for line in lines]
    assert _mismatch("\n".join(lines + other)) == []
