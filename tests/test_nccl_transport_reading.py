"""Which network NCCL used, read from its own lines (issue 12, held-out batch AO).

Each input is real output from the case named beside it; each test asserts what doctor must read from it.
"""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.probing.contract import parse_lines
from doctor.probing.offline import gather_files
from probes.nccl_log import NcclLogProbe

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"


def _summaries(case: str) -> dict[str, object]:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    gathered = gather_files([str(CASES / case / "input")], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES)
    return {f.node: f for f in aggregate(gathered.facts) if f.KIND == "nccl.summary"}


def test_the_old_aws_ofi_wording_of_no_efa_provider_is_read() -> None:
    """aws-ofi-nccl before 1.0 said 'Could not find any optimal provider' where later ones say fi_getinfo() failed."""
    path = CASES / "ib-not-used-nccl-229" / "input" / "nccl_tests.log"
    facts = parse_lines(NcclLogProbe, path.read_text(encoding="utf-8"), source=path.name, node="input")
    reasons = [f.reason for f in facts if f.KIND == "nccl.ib_unavailable"]
    assert "no_ofi_provider" in reasons and "no_verbs_lib" in reasons


def test_nccl_2_4_7_bootstrap_socket_line_is_not_the_transport() -> None:
    """NCCL 2.4.7 prints 'NET/Socket : Using [0]ib0' on every rank before 'NET/IB : Using [0]mlx5_0'."""
    summary = _summaries("gdr-disabled-nv-peer-memory-56")
    assert summary["master_node"].ib_used and not summary["master_node"].socket_used
    assert not summary["secondary_node"].socket_used     # its NET/IB line is cut off: nothing says sockets


def test_nccl_2_4_2_ib_job_is_not_on_sockets() -> None:
    """The same bootstrap line on a healthy NCCL 2.4.2 IB job (healthy-pytorch-25767-adjacent-ranks)."""
    (summary,) = _summaries("healthy-pytorch-25767-adjacent-ranks").values()
    assert summary.ib_used and not summary.socket_used


def test_nccl_2_4_8_socket_transport_line_still_counts() -> None:
    """From 2.4.8 the bootstrap prints 'Bootstrap : Using'; 'NET/Socket : Using' is then the transport."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "probes" / "nccl_log" / "nccl-2.4-socket-ring.log"
    facts = parse_lines(NcclLogProbe, path.read_text(encoding="utf-8"), source=path.name, node="input")
    (summary,) = [f for f in aggregate(facts) if f.KIND == "nccl.summary"]
    assert summary.socket_used and not summary.ib_used


def test_an_old_node_that_says_ib_is_unusable_is_on_sockets() -> None:
    """Below 2.4.8 a node whose NCCL could not open libibverbs falls back to the socket transport."""
    text = ("n1:20:289 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
            "n1:20:289 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n"
            "n1:20:289 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
            "NCCL version 2.4.2+cuda10.0\n")
    facts = parse_lines(NcclLogProbe, text, source="x.log", node="input")
    (summary,) = [f for f in aggregate(facts) if f.KIND == "nccl.summary"]
    assert summary.socket_used
