"""perftest (ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat, ib_read_lat, ib_send_lat), host or --use_cuda.

Sample input:
    initializing CUDA                                     (only with --use_cuda)
    cuMemAlloc() of a 67108864 bytes GPU buffer
                        RDMA_Write BW Test
     Dual-port       : OFF		Device         : mlx5_0
     Link type       : IB
     #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
     65536      5000             23526.73            23524.80		   0.376397
     #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
     2       1000          1.01           4.34         1.04     	       1.05        	0.07   		1.19    		4.34

perftest's MB is 2^20 bytes and its Gb (--report_gbits) 10^9 bits; both become Gbit/s here. One file may hold
several runs (host and GPU buffers one after the other): each title line starts a new one. A bandwidth run
reports its best average over the sizes it ran (-a runs many); a latency run its smallest message.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from doctor.facts.measure import BandwidthSample, LatencySample
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_TITLE = lazy_compile(r"^\s*(?P<verb>RDMA_Write|RDMA_Read|Send|Atomic\w*)\s+(?P<kind>BW|Latency)\s+Test\s*$")
_TOOL = {("RDMA_Write", "BW"): "ib_write_bw", ("RDMA_Read", "BW"): "ib_read_bw", ("Send", "BW"): "ib_send_bw",
         ("RDMA_Write", "Latency"): "ib_write_lat", ("RDMA_Read", "Latency"): "ib_read_lat",
         ("Send", "Latency"): "ib_send_lat"}
_DEVICE = lazy_compile(r"Device\s*:\s*(?P<dev>\S+)")
_GPU = lazy_compile(r"initializing CUDA|cuMemAlloc\(\)|GPU buffer|Picking device No\.|--use_cuda")
_BW_HEADER = lazy_compile(r"#bytes\s+#iterations\s+BW peak\[(?P<unit>MB/sec|Gb/sec|MiB/sec)\]")
_LAT_HEADER = lazy_compile(r"#bytes\s+#iterations\s+t_min\[usec\]")
_ROW = lazy_compile(r"^\s*(?P<bytes>\d+)\s+(?P<iters>\d+)\s+(?P<rest>[\d.\s]+)$")
_MB_TO_GBIT = 1048576 * 8 / 1e9


@dataclass
class _Run:
    tool: str = ""
    device: str = ""
    gpu: bool = False
    unit: str = ""                      # MB/sec | Gb/sec | usec
    rows: list[tuple[int, str, list[float], int]] = field(default_factory=list)   # (line_no, line, numbers, bytes)


class Perftest(DocumentProbe):
    name = "perftest"
    yields = ("bench.bandwidth", "bench.latency")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return "#bytes" in head and ("BW peak[" in head or "t_min[usec]" in head) and \
            bool(re.search(r"(?:BW|Latency) Test", head))

    def parse(self, text: str, ctx: ParseContext) -> None:
        runs: list[_Run] = [_Run()]
        for number, line in enumerate(text.splitlines(), start=1):
            run = runs[-1]
            if (m := _TITLE.match(line)):
                if run.rows or run.tool:
                    runs.append(_Run(gpu=run.gpu and not run.rows))
                    run = runs[-1]
                run.tool = _TOOL.get((m["verb"], m["kind"]), f"ib_{m['verb'].lower()}_{m['kind'].lower()}")
            elif _GPU.search(line):
                if run.rows:
                    runs.append(_Run())
                    run = runs[-1]
                run.gpu = True
            elif (m := _DEVICE.search(line)) and not run.device:
                run.device = m["dev"]
            elif (m := _BW_HEADER.search(line)):
                run.unit = m["unit"]
            elif _LAT_HEADER.search(line):
                run.unit = "usec"
            elif run.unit and (m := _ROW.match(line)):
                run.rows.append((number, line, [float(x) for x in m["rest"].split()], int(m["bytes"])))
        for run in runs:
            self._emit(run, ctx)

    def _emit(self, run: _Run, ctx: ParseContext) -> None:
        if not run.rows:
            return
        if run.unit == "usec":
            line_no, line, nums, size = min(run.rows, key=lambda r: r[3])
            # t_min t_max t_typical [t_avg t_stdev p99 p99.9]
            ctx.emit(LatencySample, line_no, line, tool=run.tool or "ib_lat", typical_us=_at(nums, 2),
                     avg_us=_at(nums, 3), p99_us=_at(nums, 5), msg_bytes=size, device=run.device, gpu=run.gpu)
            return
        line_no, line, nums, size = max(run.rows, key=lambda r: _at(r[2], 1))
        average = _at(nums, 1)
        factor = 1.0 if run.unit == "Gb/sec" else _MB_TO_GBIT
        ctx.emit(BandwidthSample, line_no, line, tool=run.tool or "ib_bw", metric="rdma_gbps",
                 gbps=round(average * factor, 3), device=run.device, gpu=run.gpu, msg_bytes=size)


def _at(values: list[float], index: int) -> float:
    return values[index] if len(values) > index else -1.0
