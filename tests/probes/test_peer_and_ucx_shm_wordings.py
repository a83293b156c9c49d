"""Wordings of held-out batch AS: a framework's own 'peer-to-peer access is unsupported'.

Each text is verbatim from the thread or case named beside it.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.cuda_errors import CudaErrors

# fixtures/cases/p2p-distserve-39-4090-no-peer-access (LLMServe/DistServe#39): the framework checks P2P itself and stops
DISTSERVE = "(ParaWorker pid=1955026) Error: Peer-to-peer access is unsupported on this platform.\n"
# cuda-samples' simpleP2P on GPUs without P2P (aikitoria/open-gpu-kernel-modules#25): the sample skips, nothing failed
SIMPLEP2P_WAIVED = "Peer to Peer access is not available amongst GPUs in the system, waiving test.\n"


def cuda_errors(text: str) -> list[str]:
    return [f.error for f in parse_lines(CudaErrors, text, source="worker.log", node="") if f.KIND == "cuda.error"]


def test_a_frameworks_own_peer_to_peer_unsupported_is_peer_access() -> None:
    assert cuda_errors(DISTSERVE) == ["peer_access"]


def test_a_sample_waiving_its_p2p_test_is_no_error() -> None:
    assert cuda_errors(SIMPLEP2P_WAIVED) == []
