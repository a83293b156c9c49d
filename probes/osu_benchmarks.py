"""OSU Micro-Benchmarks: osu_bw, osu_bibw and osu_latency tables, host or GPU (MPI-CUDA) buffers.

Sample input:
    $ srun -N2 --mpi=pmix ./pt2pt/osu_bw --validation D D
    # OSU MPI-CUDA Bandwidth Test v7.5
    # Datatype: MPI_CHAR.
    # Size      Bandwidth (MB/s)        Validation
    1                       0.06              Pass
    4194304              1802.75              Pass

OSU's MB is 10^6 bytes (it divides bytes by 1e6 per second); a bandwidth run reports its best row in Gbit/s, a
latency run its smallest message. Each "# OSU MPI... Test" title starts a run; "MPI-CUDA", "MPI-ROCM" or a
"D D" / "-d cuda" on the command line above it says the buffers live in GPU memory. Collective tests (osu_allreduce,
osu_alltoall) print latencies that have no fixed expectation: they are not read here.

The figures carry no metric: a table does not say whether its two ranks shared a node (shared memory, NVLink) or
crossed the network, so no expectation of a NIC judges them. They are measurements: the input shows a benchmark
(symptom slow_multinode for the differential), and a report quotes them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from doctor.facts.measure import BandwidthSample, LatencySample
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

# title -> tool: point-to-point tests only
_TITLE = lazy_compile(r"^#\s*OSU (?:MPI|OpenSHMEM|UPC\+*|NCCL)(?P<gpu>-CUDA|-ROCM|-OPENACC)?\s+"
                      r"(?P<test>Bi-Directional Bandwidth|Bandwidth|Latency|[\w/ -]{1,80}?)\s+Test\b")
_TOOLS = {"Bandwidth": "osu_bw", "Bi-Directional Bandwidth": "osu_bibw", "Latency": "osu_latency"}
_GPU_COMMAND = lazy_compile(r"\bosu_\w+\b.*(?:\s-d\s+(?:cuda|rocm)\b|\s[DM]\s+[DM]\s*$)")
_BW_HEADER = lazy_compile(r"^#\s*Size\s+(?:Bandwidth|Bi-Bandwidth)\s*\(MB/s\)")
_LAT_HEADER = lazy_compile(r"^#\s*Size\s+(?:Avg )?Latency\s*\(us\)")
_ROW = lazy_compile(r"^\s*+(?P<bytes>\d+)\s++(?P<value>\d+(?:\.\d+)?)(?:\s++(?:Pass|Fail)\w*)?\s*+$")
_MB_TO_GBIT = 8e6 / 1e9


@dataclass
class _Run:
    tool: str = ""
    gpu: bool = False
    unit: str = ""                      # "MB/s" | "us"
    rows: list[tuple[int, str, float, int]] = field(default_factory=list)   # (line_no, line, value, bytes)


class OsuBenchmarks(DocumentProbe):
    name = "osu_benchmarks"
    yields = ("bench.bandwidth", "bench.latency")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return bool(re.search(r"^#\s*OSU (?:MPI|OpenSHMEM|UPC|NCCL)\S*\s.+Test\b", head, re.M))

    def parse(self, text: str, ctx: ParseContext) -> None:
        runs: list[_Run] = []
        gpu_command = False
        for number, line in enumerate(text.splitlines(), start=1):
            if _GPU_COMMAND.search(line):
                gpu_command = True
            elif (m := _TITLE.match(line)):
                runs.append(_Run(tool=_TOOLS.get(m["test"], ""), gpu=bool(m["gpu"]) or gpu_command))
                gpu_command = False
            elif runs and _BW_HEADER.match(line):
                runs[-1].unit = "MB/s"
            elif runs and _LAT_HEADER.match(line):
                runs[-1].unit = "us"
            elif runs and runs[-1].tool and runs[-1].unit and (m := _ROW.match(line)):
                runs[-1].rows.append((number, line, float(m["value"]), int(m["bytes"])))
        for run in runs:
            _emit(run, ctx)


def _emit(run: _Run, ctx: ParseContext) -> None:
    if not run.rows:
        return
    if run.unit == "us":
        line_no, line, value, size = min(run.rows, key=lambda r: r[3])
        ctx.emit(LatencySample, line_no, line, tool=run.tool, metric="", avg_us=value, msg_bytes=size,
                 gpu=run.gpu)
        return
    line_no, line, value, size = max(run.rows, key=lambda r: r[2])
    ctx.emit(BandwidthSample, line_no, line, tool=run.tool, metric="", gbps=round(value * _MB_TO_GBIT, 3),
             gpu=run.gpu, msg_bytes=size)
