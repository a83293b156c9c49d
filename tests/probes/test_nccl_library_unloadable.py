"""cuda_errors: XLA's "Unable to load NCCL library" is the NCCL library missing (issue 12).

Real text: jax-ml/jax#18391 (fixtures/cases/driver-jax-18391-nccl-not-installed-cuda12-local), where jaxlib's
cuda12_local install no longer vendored NCCL and the first all-reduce could not dlopen it. Before, the line was read
by no probe and the input got the crash symptom's guess (known_software_bug 0.63).
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "cases" / "driver-jax-18391-nccl-not-installed-cuda12-local"
LINE = ("external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) failed: Unable to load "
        "NCCL library. Multi-GPU collectives will not work.;\n")
PLUGIN_INFO = ("ng30903:3063025:3063025 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
               "libnccl-net.so: cannot open shared object file: No such file or directory\n")   # nccl#1235: no plugin, normal


def test_the_line_is_a_missing_library() -> None:
    facts = parse_lines(CudaErrors, LINE)
    assert [(f.KIND, f.get("error")) for f in facts] == [("cuda.error", "lib_missing")]


def test_a_missing_net_plugin_is_not_a_missing_library() -> None:
    assert parse_lines(CudaErrors, PLUGIN_INFO) == []


def test_the_case_names_the_missing_library() -> None:
    report = diagnose_files([str(CASE / "input")])
    assert report.diagnoses[0].cause == "cuda_driver_mismatch"
