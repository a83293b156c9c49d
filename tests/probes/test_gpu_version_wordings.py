"""GPU library and driver version failures in the wordings real inputs use (issue 12, GPU/version area).

Each text is real output (the case or thread named beside it); each test asserts the fact the probe must read from
it, or that a near-miss wording gives none.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors

# fixtures/cases/version-awsome-distributed-ai-292: aws-ofi-nccl 1.9.0 built against a newer Libfabric than the node's
PLUGIN_SYMBOL_VERSION = (
    " [0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found (required "
    "by /fsx/ubuntu/awsome-distributed-training/3.test_cases/10.FSDP/pt_fsdp/lib/python3.10/site-packages/torch/lib/"
    "../../../../libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation\n")
# a conda environment's torch with the system's older libstdc++ (a public note on GLIBCXX_3.4.29): the C++ runtime,
# not a GPU library, is too old
LIBSTDCXX_TOO_OLD = (
    "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
    "/home/juchan/miniconda3/envs/crowded/lib/python3.9/site-packages/torch/lib/libtorch_python.so) \n")


def kinds(facts, kind):
    return [f for f in facts if f.KIND == kind]


def test_a_versioned_symbol_a_gpu_library_lacks_is_a_missing_symbol() -> None:
    (err,) = kinds(parse_lines(CudaErrors, PLUGIN_SYMBOL_VERSION), "cuda.error")
    assert err.error == "symbol_missing"
    assert "FABRIC_1.7" in err.detail


def test_a_c_runtime_too_old_is_not_a_gpu_library_mismatch() -> None:
    assert not kinds(parse_lines(CudaErrors, LIBSTDCXX_TOO_OLD), "cuda.error")
