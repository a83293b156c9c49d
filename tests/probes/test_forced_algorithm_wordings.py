"""NCCL's refusal when a forced NCCL_ALGO / NCCL_PROTO leaves a collective without an algorithm, and the linker's
wording for a library built against a newer NCCL (issue 12, held-out batch AN).

Each text is verbatim output of the case named beside it; each test asserts the fact the probe must read, or that a
near-miss wording gives none.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors
from probes.env_vars import EnvVars
from probes.nccl_errors import NcclErrors

# fixtures/cases/env-pytorch-163063-nccl-algo-nvls-leak: torch repeats NCCL's WARN under "Last error:" (NCCL 2.26)
LAST_ERROR_NVLS = """\
invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.26.2
ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
Last error:
Error : no algorithm/protocol available for function Broadcast with datatype ncclInt8. NCCL_ALGO was set to NVLS.
"""
# fixtures/cases/env-vllm-58179-nccl231-algo-override: NCCL 2.31's wording, the variables on the next line
NCCL_231 = """\
No algorithm/protocol nor symKernelId available for function Broadcast with datatype ncclInt8.
NCCL_ALGO was set to allreduce:tree. NCCL_PROTO was set to Simple.
"""
# fixtures/cases/version-torchcomms-1049-libtorch-needs-nccl229: ld linking against a libtorch built for NCCL 2.29
LINKER_MISS = ("2026-03-12T10:10:10.5168372Z /opt/rh/gcc-toolset-13/root/usr/libexec/gcc/x86_64-redhat-linux/13/ld: "
               "/opt/conda/envs/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so: undefined reference to "
               "`ncclWaitSignal'\n")
# a program's own object file that was not linked with -lnccl: a build error, not a version mismatch
OWN_OBJECT_MISS = "/usr/bin/ld: main.o: in function `main':\nmain.cu:(.text+0x4c): undefined reference to `ncclCommInitRank'\n"


def warns(text: str) -> list[str]:
    return [f.message for f in parse_lines(NcclErrors, text) if f.KIND == "nccl.warn"]


def env(text: str) -> list[tuple[str, str, int]]:
    return [(f.name, f.value, f.origin.line) for f in parse_lines(EnvVars, text) if f.KIND == "env.var"]


def test_the_refusal_under_last_error_is_read_as_its_warn() -> None:
    assert warns(LAST_ERROR_NVLS) == [
        "Error : no algorithm/protocol available for function Broadcast with datatype ncclInt8. NCCL_ALGO was set to NVLS."]


def test_nccls_echo_of_the_forced_algorithm_is_a_setting() -> None:
    assert env(LAST_ERROR_NVLS) == [("NCCL_ALGO", "NVLS", 4)]


def test_nccl_231_wording_and_both_variables() -> None:
    assert warns(NCCL_231) == ["No algorithm/protocol nor symKernelId available for function Broadcast with datatype ncclInt8."]
    assert env(NCCL_231) == [("NCCL_ALGO", "allreduce:tree", 2), ("NCCL_PROTO", "Simple", 2)]


def test_a_library_linked_against_an_older_nccl_is_a_missing_symbol() -> None:
    assert [(f.error, f.origin.line) for f in parse_lines(CudaErrors, LINKER_MISS) if f.KIND == "cuda.error"] == [
        ("symbol_missing", 1)]


def test_a_program_not_linked_with_nccl_is_not_read() -> None:
    assert not [f for f in parse_lines(CudaErrors, OWN_OBJECT_MISS) if f.KIND == "cuda.error"]

# fixtures/cases/ksb-aws-ofi-nccl-982-tuner-v1-proto: aws-ofi-nccl applies its own defaults for the EFA provider
PLUGIN_DEFAULTS = """\
a100-st-p4de24xlarge-591:1754318:1754443 [1] NCCL INFO NET/OFI Need to force simple protocol: byte delivery ordering not supported
a100-st-p4de24xlarge-591:1754318:1754443 [1] NCCL INFO NET/OFI Adding NCCL_BUFFSIZE=8388608 to environment
a100-st-p4de24xlarge-591:1754318:1754443 [1] NCCL INFO NET/OFI Adding NCCL_PROTO=simple to environment
"""


def test_a_net_plugins_own_defaults_are_marked_as_the_plugins() -> None:
    assert [(f.name, f.value, f.source) for f in parse_lines(EnvVars, PLUGIN_DEFAULTS) if f.KIND == "env.var"] == [
        ("NCCL_BUFFSIZE", "8388608", "plugin"), ("NCCL_PROTO", "simple", "plugin")]


def test_a_users_own_setting_is_still_environ() -> None:
    assert [(f.name, f.source) for f in parse_lines(EnvVars, "export NCCL_PROTO=simple\n") if f.KIND == "env.var"] == [
        ("NCCL_PROTO", "environ")]
