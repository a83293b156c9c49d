"""`nsys stats` without --format csv: each report as columns aligned under a rule of dashes. Text verbatim from
fixtures/logs/moc-gpt2-tcp-nsys-stats-table (tssala23/moc-training-scripts: nsys 2025.2.1 stats of a two-node GPT-2
DDP run over TCP; every real nsys output found in public threads and repositories is in this form). The probe read
only the CSV form, so this report gave no fact."""
from __future__ import annotations

from doctor.probing.contract import parse_document
from doctor_cli import REPO
from probes.nsys_stats import NsysStats

STATS = REPO / "fixtures/logs/moc-gpt2-tcp-nsys-stats-table/tcp_nsys_stats.txt"


def facts(kind: str) -> list:
    text = STATS.read_text(encoding="utf-8", errors="replace")
    return [f for f in parse_document(NsysStats, text, source=STATS.name) if f.KIND == kind]


def test_the_kernel_summary_gives_ncclS_share_of_kernel_time() -> None:
    (share,) = facts("profile.kernels")
    assert 0.65 <= share.nccl_share <= 0.67 and share.top_nccl == "ncclDevKernel_AllReduce_Sum_f32_TREE_LL"
    assert share.origin.line == 153 and "5368734745" in share.origin.text


def test_only_the_cuda_api_summary_is_read_as_cuda_calls() -> None:
    """The OS-runtime summary has the same columns (Num Calls, Name): pthread_cond_wait is no CUDA call."""
    (api,) = facts("profile.cuda_api")
    assert api.top_call == "cudaStreamSynchronize" and api.origin.line == 95


def test_the_probe_recognises_the_aligned_form_from_its_head() -> None:
    assert NsysStats.sniff(STATS.read_text(encoding="utf-8", errors="replace")[:16384])
