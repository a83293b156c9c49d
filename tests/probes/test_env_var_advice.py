"""An error message that suggests an environment setting has not set it (issue 12).

PyTorch's OOM message ends with advice, "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"; read as an
assignment it told every rule that expandable segments were on in the very runs that lacked them. The texts are
real output (the case named beside each).
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.env_vars import EnvVars

TORCH_25_OOM = (   # fixtures/cases/frag-kaito-976 (vLLM engine log)
    "ERROR 04-01 23:46:56 [engine.py:160] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. "
    "GPU 0 has a total capacity of 15.77 GiB of which 514.19 MiB is free. Process 562167 has 15.25 GiB memory in use. "
    "Of the allocated memory 13.73 GiB is allocated by PyTorch, with 46.00 MiB allocated in private pools (e.g., CUDA "
    "Graphs), and 736.86 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
    "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n")

TORCH_23_OOM = (   # fixtures/cases/frag-taggui-188
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 4.00 "
    "GiB of which 2.35 GiB is free. Of the allocated memory 825.15 MiB is allocated by PyTorch, and 24.85 MiB is "
    "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation. See documentation for Memory Management\n")

SET_ON_THE_COMMAND_LINE = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True torchrun --nproc_per_node=8 train.py\n"


def env(text: str) -> list[tuple[str, str]]:
    return [(f.name, f.value) for f in parse_lines(EnvVars, text) if f.KIND == "env.var"]


def test_oom_advice_sets_nothing() -> None:
    assert env(TORCH_25_OOM) == []
    assert env(TORCH_23_OOM) == []


def test_a_real_assignment_is_still_read() -> None:
    assert env(SET_ON_THE_COMMAND_LINE) == [("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")]


# fixtures/cases/ifname-hkproj-transformer-distributed-1 (verbatim): NCCL asks for NCCL_DEBUG=INFO; the job did not set it
NCCL_HINT = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
             "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6\n")


def test_nccls_run_with_hint_is_not_a_setting() -> None:
    assert not [f for f in parse_lines(EnvVars, NCCL_HINT) if f.KIND == "env.var"]


SAGEMAKER_COLOURED = (   # fixtures/cases/healthy-sagemaker-examples-smddp-mnist-p4d-2node-ofi-warn (line 284)
    "\x1b[35m[1,mpirank:0,algo-1]<stdout>:algo-2:203:352 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to "
    "eth0\x1b[0m\n")


def test_a_terminal_colour_code_is_not_part_of_the_value() -> None:
    """SageMaker colours every line of its job log; the reset code after 'eth0' once made the interface 'eth0\\x1b[0m'."""
    assert env(SAGEMAKER_COLOURED) == [("NCCL_SOCKET_IFNAME", "eth0")]
