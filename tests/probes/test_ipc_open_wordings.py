"""Wordings of held-out batch BA: an MPI library could not open a peer rank's CUDA IPC handle (INVALID_VALUE).

Each text is verbatim from the thread or case named beside it.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors

# fixtures/cases/rank-config-warpx-6382-cray-gpu-bind-ipc (BLAST-WarpX/warpx#6382): Cray MPICH's GTL on Perlmutter
CRAY_GTL = "(GTL DEBUG: 1) cuIpcOpenMemHandle: invalid argument, CUDA_ERROR_INVALID_VALUE, line no 360\n"
# fixtures/cases/rank-config-ompi-11949-slurm-gpu-bind-ipc (open-mpi/ompi#11949): Open MPI smcuda's help block
OMPI_BLOCK = ("The call to cuIpcOpenMemHandle failed. This is an unrecoverable error\n"
              "and will cause the program to abort.\n"
              "  Hostname:                         clima\n"
              "  cuIpcOpenMemHandle return value:  1\n"
              "  address:                          0x7fd865200000\n")
# an Open MPI verbose line of a healthy IPC setup (open-mpi/ompi#9301): names no cuIpcOpenMemHandle failure
OMPI_IPC_OK = "[node1:1805108] BTL smcuda: rank=1 enabling CUDA IPC to rank=0 on node=node1                   \n"


def cuda_errors(text: str) -> list[tuple[str, int]]:
    return [(f.error, f.origin.line) for f in parse_lines(CudaErrors, text, source="mpi.log", node="")
            if f.KIND == "cuda.error"]


def test_cray_gtl_invalid_value_is_read() -> None:
    assert cuda_errors(CRAY_GTL) == [("ipc_open_invalid", 1)]


def test_open_mpi_return_value_1_is_read_on_its_own_line() -> None:
    assert cuda_errors(OMPI_BLOCK) == [("ipc_open_invalid", 4)]


def test_a_healthy_ipc_setup_line_is_not_read() -> None:
    assert cuda_errors(OMPI_IPC_OK) == []
