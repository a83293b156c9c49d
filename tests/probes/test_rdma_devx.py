"""probes/rdma_devx.py: an mlx5dv_devx call refused with 'Protocol not supported', on the verbatim lines of
openucx/ucx#6906 (bare message) and #7229 (UCX's own prefix); other errnos and other lines are not read."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _calls(path: Path) -> list[tuple[str, str, str]]:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return [(f.call, f.errno, f.resource) for f in facts if f.KIND == "sys.call_failed" and f.call.startswith("mlx5dv")]


def test_bare_message_is_read() -> None:
    assert _calls(CASES / "version-ucx-6906-mofed5-user-mofed4-kernel" / "input") == [
        ("mlx5dv_devx_create_event_channel", "EPROTONOSUPPORT", "rdma-core")]


def test_ucx_prefixed_line_is_read() -> None:
    assert _calls(CASES / "version-ucx-7229-rdma-core33-centos7-kernel" / "input") == [
        ("mlx5dv_devx_create_event_channel", "EPROTONOSUPPORT", "ucx")]


def test_other_errno_is_not_read(tmp_path: Path) -> None:
    # ucx#6223's wording: a UAR the device refuses, not a kernel older than the user space
    p = tmp_path / "ucx.log"
    p.write_text("[1611787738.347966] [pacu02:233164:0]        ib_mlx5.c:395  UCX  ERROR mlx5dv_devx_alloc_uar() "
                 "failed: Operation not supported\n")
    assert _calls(p) == []
