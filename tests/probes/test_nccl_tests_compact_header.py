"""nccl-tests headers pasted with the spaces after '#' collapsed (held-out batch AL, nccl-tests#291): the device line
still names the GPU, and NCCL's 'nranks 1' says the run had a single rank. Text verbatim from
fixtures/cases/bug-nccltests-291-5090-alltoall-nccl2251/input/alltoall_perf.log; the spaced form from nccl-tests'
own output for contrast."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.nccl_tests import NcclTests

COMPACT = """\
#nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 1048576(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#Using devices
#Rank 0 Group 0 Pid 12225 on node device 0 [0000:16:00] NVIDIA GeForce RTX 5090
node:12225:12255 [0] NCCL INFO ncclCommInitAll comm 0x55cc27005c20 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 16000 commId 0x1c3170e2c1182784 - Init START
"""
SPACED = "#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX 5090\n"


def facts(text: str, kind: str):
    return [f for f in parse_lines(NcclTests, text, source="alltoall_perf.log", node="") if f.KIND == kind]


def test_a_device_line_without_spaces_after_the_hash_is_read() -> None:
    (gpu,) = facts(COMPACT, "gpu.device")
    assert gpu.name == "NVIDIA GeForce RTX 5090" and gpu.consumer


def test_the_spaced_device_line_reads_the_same() -> None:
    (gpu,) = facts(SPACED, "gpu.device")
    assert gpu.name == "NVIDIA GeForce RTX 5090" and gpu.consumer


def test_nccl_says_the_run_has_one_rank() -> None:
    (bench,) = facts(COMPACT, "bench.collective")
    assert bench.nranks == 1 and bench.gpus == 1 and bench.results == 0
