"""NCCL 2.2x+ prints the function between the source and the level ("transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN",
debug.cc's "%s:%d (%s) NCCL WARN"): probes/nccl_errors.py and probes/error_lines.py read the source line as before.
Lines are verbatim from public logs (DCGM#304 and NCCL users' posts)."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _facts(path: Path) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    return gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "nccl.log"
    p.write_text(text + "\n")
    return p


def test_nvls_warn_with_function_keeps_its_source_and_reads_the_cuda_failure() -> None:
    # DCGM#304: NCCL 2.29's own WARN words the NVLS failure as its "Last error:" text does
    warns = [f for f in _facts(CASES / "gpu-dcgm-304-nvls-bind-nvlink-bad-state" / "input") if f.KIND == "nccl.warn"]
    assert [(w.src, w.message) for w in warns] == [
        ("transport/nvls.cc:379", "Cuda failure 401 'the operation cannot be performed in the present state'")]


def test_ibv_call_warn_with_function_keeps_its_source(tmp_path: Path) -> None:
    line = ("misc/ibvwrap.cc:213 (wrap_ibv_reg_mr_iova2) NCCL WARN Call to ibv_reg_mr_iova2 failed with error "
            "Cannot allocate memory")
    warns = [f for f in _facts(_write(tmp_path, line)) if f.KIND == "nccl.warn"]
    assert [(w.src, w.message) for w in warns] == [
        ("misc/ibvwrap.cc:213", "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory")]


def test_warn_without_function_is_read_as_before(tmp_path: Path) -> None:
    line = "node1:3012:3012 [1] transport/nvls.cc:161 NCCL WARN Cuda failure 1 'invalid argument'"
    warns = [f for f in _facts(_write(tmp_path, line)) if f.KIND == "nccl.warn"]
    assert [(w.src, w.message) for w in warns] == [("transport/nvls.cc:161", "Cuda failure 1 'invalid argument'")]


def test_return_code_trace_with_function_is_an_error_line(tmp_path: Path) -> None:
    line = ("worker-0:862519:862553 [0] NCCL INFO transport/net_ib/gdaki/gin_host_gdaki.cc:683 "
            "(ncclGinGdakiCreateContext) -> 2")
    kept = [f for f in _facts(_write(tmp_path, line)) if f.KIND == "log.error_line"]
    assert [f.form for f in kept] == ["nccl_trace"]
