"""An nccl-tests excerpt that starts after the device table still tells its hosts: NCCL_DEBUG prefixes every line
with the host of the process that printed it (held-out batch AT, nccl-tests#227: one '# Rank' line left, two hosts in
NCCL's lines, NET/IB in use). Text verbatim from fixtures/cases/env-ibext-nccl-tests-227/input/nccl_debug.log; the
single-host excerpt is the first lines of nccl-tests#291's output (fixtures/cases/bug-nccltests-291-5090-alltoall-nccl2251)."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.nccl_tests import NcclTests

TWO_HOSTS = """\
#  Rank  1 Group  0 Pid   4940 on ai-worker03 device  0 [0x61] NVIDIA L40
ai-worker01:5771:5771 [0] NCCL INFO Bootstrap : Using eth0:172.16.121.86<0>
ai-worker01:5771:5771 [0] NCCL INFO cudaDriverVersion 12040
NCCL version 2.21.5+cuda12.4
ai-worker03:4940:4940 [0] NCCL INFO cudaDriverVersion 12040
ai-worker03:4940:4940 [0] NCCL INFO Bootstrap : Using eth0:172.16.207.69<0>
ai-worker01:5771:5783 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE [1]irdma3:1/RoCE [RO]; OOB eth0:172.16.121.86<0>
"""
ONE_HOST = """\
#nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 1048576(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#Using devices
#Rank 0 Group 0 Pid 12225 on node device 0 [0000:16:00] NVIDIA GeForce RTX 5090
node:12225:12255 [0] NCCL INFO ncclCommInitAll comm 0x55cc27005c20 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 16000 commId 0x1c3170e2c1182784 - Init START
"""


def bench(text: str):
    (fact,) = [f for f in parse_lines(NcclTests, text, source="nccl_debug.log", node="") if f.KIND == "bench.collective"]
    return fact


def test_two_hosts_in_nccls_prefixes_make_the_run_multi_node() -> None:
    fact = bench(TWO_HOSTS)
    assert fact.multi_node and fact.hosts == 2 and fact.started and fact.results == 0


def test_one_host_stays_single_node_and_nranks_is_still_read() -> None:
    fact = bench(ONE_HOST)
    assert not fact.multi_node and fact.hosts == 1 and fact.nranks == 1
