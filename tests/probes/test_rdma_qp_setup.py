"""rdma_qp_setup: perftest's RTR failure with the GIDs of its header, and Mooncake's GID lines (verbatim)."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.probing.offline import gather_files
from probes.rdma_qp_setup import decimal_gid

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _calls(path: Path) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    return [f for f in facts if f.KIND == "sys.call_failed"]


def test_decimal_gid_reads_perftest_bytes() -> None:
    assert decimal_gid("00:00:00:00:00:00:00:00:00:00:255:255:10:255:255:05") == "::ffff:10.255.255.5"
    assert decimal_gid("00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00") == "::"
    assert decimal_gid("254:128:00:00:00:00:00:00:158:99:192:255:254:101:171:144") == "fe80::9e63:c0ff:fe65:ab90"
    assert decimal_gid("300:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00") == ""


def test_perftest_rtr_failure_carries_link_type_index_and_gids() -> None:
    calls = _calls(CASES / "k8s-rdma-72-roce-zero-gid-in-pod" / "input")
    assert [(c.call, c.resource, c.gid_index, c.roce, c.local_gid, c.remote_gid) for c in calls] == \
        [("ibv_modify_qp", "mlx5_2", 0, True, "::", "::")]
    assert calls[0].origin.text == "Failed to modify QP 59 to RTR"


def test_mooncake_gid_null_line() -> None:
    calls = _calls(CASES / "sglang-30737-mooncake-gid-null-roce" / "input")
    assert [(c.call, c.origin.line) for c in calls] == [("ibv_query_gid", 1)]


def test_mooncake_query_gid_wordings(tmp_path: Path) -> None:
    log = tmp_path / "te.log"
    log.write_text(
        "E0924 01:29:28.347672  2254 rdma_context.cpp:499] Failed to query GID 0 on mlx5_0/: Invalid argument [22]\n"
        "Device erdma_0 GID 1 not available: Invalid argument [22]\n")
    assert [(c.call, c.resource, c.gid_index, c.errno) for c in _calls(log)] == \
        [("ibv_query_gid", "mlx5_0", 0, "EINVAL"), ("ibv_query_gid", "erdma_0", 1, "EINVAL")]


def test_working_perftest_runs_emit_nothing() -> None:
    for case in ("healthy-perftest-234-roce-write-bw-gid3", "healthy-perftest-273-roce-write-bw-postlist"):
        assert _calls(CASES / case / "input") == []


def test_scanning_empty_gid_slots_is_enodata() -> None:
    calls = _calls(CASES / "mooncake-1592-gid-autodetect-ipv6-only" / "input")
    assert len(calls) == 11 and {(c.call, c.errno) for c in calls} == {("ibv_query_gid", "ENODATA")}
    assert (calls[0].resource, calls[0].gid_index) == ("rocep153s0", 244)
