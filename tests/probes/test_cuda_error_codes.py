"""A CUDA error given only by its number (issue 12, held-out batch KT).

LAMMPS' GPU package (its geryon layer) prints the driver's CUresult as a number: "Cuda driver error 804 in call at
file ...". 804 and 803 mean the same in the runtime and the driver API, and both name the driver: 804 is forward
compatibility attempted on a GPU that does not support it (the driver is too old for this GPU and this CUDA), 803 a
driver and user-space library of different versions. Before, the line read as nothing and the input as healthy.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
LAMMPS_804 = "Cuda driver error 804 in call at file\n"     # lammps#4849, as posted (the path follows on the next line)


def errors(text: str) -> list[str]:
    return [f.error for f in parse_lines(CudaErrors, text) if f.KIND == "cuda.error"]


def test_lammps_driver_error_804_is_a_driver_too_old_for_the_gpu() -> None:
    assert errors(LAMMPS_804) == ["driver_insufficient"]


@pytest.mark.parametrize("text, expected", [
    ("CUDA error 803\n", ["driver_library_mismatch"]),
    ("cuda runtime error: 804\n", ["driver_insufficient"]),
    ("CUDA error 801\n", []),                       # operation not supported: not a driver-version number
    ("HTTP error 804 from the registry\n", []),     # no CUDA in the line
    ("Cuda driver error 8040 in call\n", []),       # another number
])
def test_only_the_two_driver_numbers_after_cuda_are_read(text: str, expected: list[str]) -> None:
    assert errors(text) == expected


def test_the_lammps_report_names_the_driver() -> None:
    report = diagnose_files([str(CASES / "driver-lammps-4849-error-804-compat-rtx5080" / "input")])
    assert not report.healthy
    assert report.diagnoses[0].cause == "cuda_driver_mismatch"
