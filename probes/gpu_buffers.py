"""Signs that a job hands GPU memory to MPI, UCX or NIXL (not NCCL): the context a UCX or MPI setting is judged in.

Sample input:
    mpirun -np 2 -x UCX_TLS=rc,gdr_copy -mca pml ucx ... osu_latency -m 1:$((2**10)) -x 1 -i 1 -d cuda D D
    ucx_perftest -t tag_bw -m cuda 10.0.0.2
    W ucx_utils.cpp:631] 4 NVIDIA GPU(s) were detected, but UCX CUDA support was not found!
    E ucx_utils.cpp:585] VRAM memory is detected as host by UCX.

An OSU test with device buffers ("-d cuda", "D D" or "M M" after the test, its "# OSU MPI-CUDA" title), ucx_perftest
with "-m cuda" (or cuda-managed), NIXL registering VRAM. One fact per input is enough: it is context, not evidence.
"""
from __future__ import annotations

from doctor.facts.logline import GpuBuffers
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

# (library, pattern), first match wins
_SIGNS = (
    ("mpi", lazy_compile(r"\bosu_\w+\b.*(?:\s-d\s+(?:cuda|rocm)\b|\s[DM]\s+[DM]\s*$)|^#\s*OSU MPI-(?:CUDA|ROCM)\b")),
    ("ucx", lazy_compile(r"\bucx_perftest\b.*\s-m\s+(?:cuda|cuda-managed|rocm)\b")),
    ("nixl", lazy_compile(r"VRAM memory is detected as host by UCX|NVIDIA GPU\(s\) were detected, but UCX CUDA support")),
)


class GpuBufferSigns(LineProbe):
    name = "gpu_buffers"
    yields = ("job.gpu_buffers",)
    triggers = ("osu_", "OSU MPI-", "ucx_perftest", "detected as host by UCX", "UCX CUDA support")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.seen = False

    def feed(self, line_no: int, line: str) -> None:
        if self.seen:
            return
        for library, pattern in _SIGNS:
            if pattern.search(line):
                self.ctx.emit(GpuBuffers, line_no, line, library=library)
                self.seen = True
                return
