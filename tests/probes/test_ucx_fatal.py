"""probes/ucx_fatal.py and the ib.endpoint_timeout it leads to, on real UCX output (fixtures/cases inputs)."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def facts_of(path: Path, kind: str) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    return [f for f in facts if f.KIND == kind]


def test_ud_iface_endpoint_timeout_is_a_ud_timeout() -> None:
    fatal = facts_of(CASES / "ucx-2501-rroce-gid-index" / "input" / "mpi_stderr.log", "ucx.fatal")
    assert fatal and {(f.transport, f.timeout) for f in fatal} == {("ud", True)}
    assert fatal[0].message == "transport error: Endpoint timeout"


def test_roce_setting_on_the_command_line_is_the_roce_sign() -> None:
    (t,) = facts_of(CASES / "ucx-2501-rroce-gid-index" / "input", "ib.endpoint_timeout")
    assert t.roce and "UCX_IB_ETH_PAUSE_ON=y" in t.roce_sign


def test_timeout_without_any_roce_evidence_is_not_roce() -> None:
    (t,) = facts_of(CASES / "ucx-2501-rroce-gid-index" / "input" / "mpi_stderr.log", "ib.endpoint_timeout")
    assert not t.roce and t.roce_sign == ""


def test_a_healthy_ucx_benchmark_has_no_fatal_line() -> None:
    assert facts_of(CASES / "healthy-ucx-7245-hpcx27-osu-bibw" / "input", "ucx.fatal") == []
