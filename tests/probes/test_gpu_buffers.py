"""GPU memory handed to MPI, UCX or NIXL (probes/gpu_buffers.py): the context ENV600 judges UCX_TLS in.

Real text: ucx#3776's `mpirun -x UCX_TLS=rc,gdr_copy ... osu_latency ... -d cuda D D` (held-out batch LI) and
TensorRT-LLM#18373's NIXL "VRAM memory is detected as host by UCX" (batch LL). ucx#6695's ucx_perftest on host memory
with UCX_TLS=tcp is no such sign (a UCX bug on loopback, not the setting).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.gpu_buffers import GpuBufferSigns

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


@pytest.mark.parametrize("line, library", [
    ("mpirun -np 2  -x UCX_TLS=rc,gdr_copy -mca pml ucx --host host1:1,host2:1 osu_latency -d cuda D D\n", "mpi"),
    ("srun -N2 ./pt2pt/osu_bw --validation D D\n", "mpi"),
    ("# OSU MPI-CUDA Bandwidth Test v7.5\n", "mpi"),
    ("ucx_perftest -t tag_bw -m cuda 10.0.0.2\n", "ucx"),
    ("E ucx_utils.cpp:585] VRAM memory is detected as host by UCX.\n", "nixl"),
])
def test_each_sign_names_its_library(line: str, library: str) -> None:
    assert [(f.KIND, f.get("library")) for f in parse_lines(GpuBufferSigns, line)] == [("job.gpu_buffers", library)]


@pytest.mark.parametrize("line", ["UCX_TLS=tcp ucx_perftest -t tag_bw -s 1000000 -n 1000 10.150.166.222\n",
                                  "mpirun -np 2 ./osu_latency H H\n", "# OSU MPI Latency Test v5.6.3\n"])
def test_host_buffers_are_no_sign(line: str) -> None:
    assert parse_lines(GpuBufferSigns, line) == []


def test_one_fact_per_input() -> None:
    text = "osu_bw -d cuda D D\n# OSU MPI-CUDA Bandwidth Test v7.5\n"
    assert len(parse_lines(GpuBufferSigns, text)) == 1


@pytest.mark.parametrize("case, cause", [("env-misuse-ucx-3776-tls-gdr-copy-without-cuda-copy", "nccl_env_misuse"),
                                         ("env-trtllm-pr18373-slurm-ucx-tls-tcp-vram-as-host", "nccl_env_misuse")])
def test_a_transport_list_without_cuda_copy_is_named(case: str, cause: str) -> None:
    report = diagnose_files([str(CASES / case / "input")])
    assert report.diagnoses[0].cause == cause and "ENV600" in report.diagnoses[0].rules


def test_host_memory_under_ucx_tls_tcp_is_not_the_setting() -> None:
    report = diagnose_files([str(CASES / "ksb-ucx-6695-110-tcp-loopback-127001" / "input")])
    assert all("ENV600" not in d.rules for d in report.diagnoses)
