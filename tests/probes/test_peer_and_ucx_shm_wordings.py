"""Wordings of held-out batch AS: a framework's own 'peer-to-peer access is unsupported', UCX's shared-memory FIFO.

Each text is verbatim from the thread or case named beside it.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors
from probes.ucx_fatal import UcxFatalLines

# fixtures/cases/p2p-distserve-39-4090-no-peer-access (LLMServe/DistServe#39): the framework checks P2P itself and stops
DISTSERVE = "(ParaWorker pid=1955026) Error: Peer-to-peer access is unsupported on this platform.\n"
# cuda-samples' simpleP2P on GPUs without P2P (aikitoria/open-gpu-kernel-modules#25): the sample skips, nothing failed
SIMPLEP2P_WAIVED = "Peer to Peer access is not available amongst GPUs in the system, waiving test.\n"
# fixtures/cases/shm-ucx-k8s-job-643 (NVIDIA/ai-cloud-validation#643): 8 ranks in a pod with the default /dev/shm
UCX_FIFO = "mm_iface failed to allocate receive FIFO\n"
# openucx/ucx#5280: the SysV md (shmget, kernel IPC limits), not /dev/shm
UCX_SYSV = ("[1591868130.001143] [orion1072:15407:0]        uct_mem.c:134  UCX  ERROR failed to allocate 262144 bytes "
            "using md sysv for user allocation: Out of memory\n")
# openucx/ucx#5045: a healthy MM iface being created, at DEBUG level
UCX_FIFO_CREATED = ("[1587128955.230674] [server:222254:0]       mm_iface.c:580  UCX  DEBUG Created an MM iface. "
                    "FIFO mm id: 954573661405414\n")


def cuda_errors(text: str) -> list[str]:
    return [f.error for f in parse_lines(CudaErrors, text, source="worker.log", node="") if f.KIND == "cuda.error"]


def shm_calls(text: str) -> list[tuple[str, str]]:
    return [(f.call, f.resource) for f in parse_lines(UcxFatalLines, text, source="mpirun.log", node="")
            if f.KIND == "sys.call_failed"]


def test_a_frameworks_own_peer_to_peer_unsupported_is_peer_access() -> None:
    assert cuda_errors(DISTSERVE) == ["peer_access"]


def test_a_sample_waiving_its_p2p_test_is_no_error() -> None:
    assert cuda_errors(SIMPLEP2P_WAIVED) == []


def test_ucx_receive_fifo_allocation_failure_is_a_shm_allocation_failure() -> None:
    assert shm_calls(UCX_FIFO) == [("shm_alloc", "/dev/shm")]


def test_ucx_sysv_allocation_failure_is_not_dev_shm() -> None:
    assert shm_calls(UCX_SYSV) == []


def test_a_created_mm_iface_is_not_read() -> None:
    assert shm_calls(UCX_FIFO_CREATED) == []
