"""Two loader and logger wordings from held-out batches NE and NC (issue 12), on real text.

- UCX's DIAG level sits below WARN: "UCX  DIAG  rdma_create_event_channel failed: No such device" on a host without
  RDMA-CM (ucx#11261, a maintainer calls such lines noise) and "UCX  DIAG  failed to create directory
  '/run/user/0/ucx'" in an MLPerf run that finished are no failure lines; UCX's ERROR lines still are.
- dlerror's "wrong ELF class: ELFCLASS32" for /usr/lib/libcuda.so.1 is a driver library that does not load (the 32-bit
  one found first): Open MPI disabled its CUDA-aware support (users list 2015/03/26537)."""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors
from probes.error_lines import classify

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _lines(case: str, name: str, needle: str) -> list[str]:
    return [line for line in (CASES / case / "input" / name).read_text().splitlines() if needle in line]


def test_ucx_diag_lines_are_no_failure() -> None:
    diag = _lines("healthy-ucx-11261-rdmacm-diag-no-rdma-device", "train.log", "UCX  DIAG")
    diag += _lines("healthy-mlperf-v51-dell-2node-b200-mixed-roce-ib-hcas", "train.log", "UCX  DIAG")
    assert len(diag) >= 3 and all("failed" in line for line in diag)
    assert [classify(line) for line in diag] == [""] * len(diag)
    assert classify("[1.2] [h:1:0] ucp_ep.c:10 UCX  ERROR failed to connect to 10.0.0.2:1234") == "error"


def test_the_rdmacm_diag_input_reads_healthy() -> None:
    report = diagnose_files([str(CASES / "healthy-ucx-11261-rdmacm-diag-no-rdma-device" / "input")])
    assert report.healthy


def test_a_driver_library_of_the_wrong_elf_class_does_not_load() -> None:
    case = CASES / "driver-ompi-users-2015-26537-libcuda-elfclass32-cuda-aware-disabled"
    text = (case / "input" / "train.log").read_text()
    errors = [f for f in parse_lines(CudaErrors, text) if f.KIND == "cuda.error"]
    assert errors and {f.error for f in errors} == {"lib_missing"}
    assert parse_lines(CudaErrors, "loaded /usr/lib/x86_64-linux-gnu/libcuda.so.1 (version 535.104.05)\n") == []
