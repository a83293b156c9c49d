"""Two ranks of one NCCL communicator on one GPU, read from their init lines (doctor/aggregate_nccl.py, duplicate_gpus)
where NCCL's own 'Duplicate GPU detected' WARN is not in the input. Real text: the probe fixtures (nccl#2397's working
two-node run, a lab recording on a lent H200 of two ranks given one GPU, an mpirun-prefixed NCCL 2.7 log) and
TensorRT-LLM#9263's excerpt."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.aggregate_nccl import duplicate_gpus
from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.nccl_comm_ranks import NcclCommRanks

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures" / "probes" / "nccl_comm_ranks"


def dups_of(name: str) -> list:
    facts = parse_lines(NcclCommRanks, (FIXTURES / name).read_text(), source=name, node="")
    return duplicate_gpus(facts)


def test_two_ranks_of_one_comm_on_one_bus_id_is_a_duplicate() -> None:
    [dup] = dups_of("lab-h200-two-ranks-one-gpu.log")
    assert (dup.rank_a, dup.rank_b, dup.bus_id, dup.node) == (0, 1, "60", "vm")


def test_the_same_bus_id_on_two_hosts_is_not() -> None:
    """ubuntu2 and ubuntu4 each have GPUs at b1000 and 69000: four ranks, four GPUs."""
    assert dups_of("two-nodes-four-ranks-nccl-2.2x.log") == []


def test_lines_without_a_host_or_a_comm_id_say_nothing() -> None:
    """NCCL 2.7's lines under an mpirun [1,N]<stdout>: prefix carry no commId and no parsed host: no comparison."""
    assert dups_of("mpirun-prefixed-no-comm-id.log") == []


def test_the_init_lines_name_the_cause_where_the_warn_is_missing() -> None:
    """TensorRT-LLM#9263 (held-out batch CW): before, the bare 'invalid usage' gave its differential with
    known_software_bug first (0.41) and rank_config_error third."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "rank-tensorrt-llm-9263-prefill-two-ranks-one-gpu" / "input")])
    top = report.diagnoses[0]
    assert top.cause == "rank_config_error" and "RANK001" in top.rules
    assert "busId 100000" in top.evidence[0].text


def test_start_and_complete_of_one_rank_are_one_fact() -> None:
    facts = parse_lines(NcclCommRanks, (FIXTURES / "two-nodes-four-ranks-nccl-2.2x.log").read_text(), source="x", node="")
    assert sorted((f.node, f.comm_rank) for f in facts) == [("ubuntu2", 0), ("ubuntu2", 1), ("ubuntu4", 2), ("ubuntu4", 3)]
    assert not [f for f in aggregate(facts) if f.KIND == "launch.duplicate_gpu"]
