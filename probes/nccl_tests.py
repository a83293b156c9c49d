"""nccl-tests output (all_reduce_perf and friends): devices, result rows, average bus bandwidth, whether it finished.

Sample input:
    # nThread 1 nGpus 4 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
    #   Rank  0 Pid  15833 on    host1 device  0 [0x02] GeForce GTX 1080 Ti
    #     134217728      33554432     float     sum      -1   6913.0   19.42   16.99      0   6917.1   19.40   16.98      0
    # Out of bounds values : 0 OK
    # Avg bus bandwidth    : 33.3227
"""
from __future__ import annotations

import re

from doctor.facts.gpu import GpuDevice
from doctor.facts.topo import CollectiveBench
from doctor.probing.contract import LineProbe, ParseContext
from probes.nvlink_status import consumer_gpu

_HEADER = re.compile(r"#\s*nThread\s+\d+\s+nGpus\s+(?P<g>\d+)")
_DEVICE = re.compile(r"#\s+Rank\s+(?P<r>\d+)(?:\s+Group\s+\d+)?\s+Pid\s+\d+\s+on\s+(?P<host>\S+)\s+device\s+(?P<d>\d+)\s+\[(?P<bus>[^\]]+)\]\s+(?P<name>.+?)\s*$")
_ROW = re.compile(r"^\s*\d+\s+\d+\s+(?:float|half|double|bfloat16|int8|uint8|int32|uint32|int64|uint64|fp8\w*)\s+\w+\s")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(?P<bw>[\d.]+)")
_WRONG = re.compile(r"#\s*Out of bounds values\s*:\s*(?P<n>\d+)")
_NRANKS = re.compile(r"nranks (?P<n>\d+)")
_BIN = re.compile(r"(?P<op>all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|sendrecv)_perf")


def _wrong_in_row(line: str) -> int:
    """The #wrong columns (out-of-place and in-place) of a result row; 'N/A' counts as 0."""
    fields = line.split()
    columns = [fields[i] for i in (8, 12) if i < len(fields)]
    return sum(int(c) for c in columns if c.isdigit())


class NcclTests(LineProbe):
    name = "nccl_tests"
    yields = ("bench.collective", "gpu.device")
    triggers = ("nThread", "Pid", "float", "half", "bfloat16", "Avg bus bandwidth", "Out of bounds", "nranks", "_perf")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.state: dict[str, object] = {"gpus": -1, "nranks": -1, "avg": -1.0, "rows": 0, "wrong": 0, "complete": False,
                                         "started": False, "op": ""}
        self.hosts: set[str] = set()
        self.anchor: tuple[int, str] | None = None

    def feed(self, line_no: int, line: str) -> None:
        s = self.state
        m = _BIN.search(line)
        if m and not s["op"]:
            s["op"] = m["op"]
        if (m := _HEADER.search(line)):
            s["gpus"], s["started"] = int(m["g"]), True
            self.anchor = self.anchor or (line_no, line)
        elif (m := _DEVICE.search(line)):
            self.hosts.add(m["host"])
            s["started"] = True
            self.ctx.emit(GpuDevice, line_no, line, index=int(m["d"]), bus_id=m["bus"], name=m["name"],
                          consumer=consumer_gpu(m["name"]), node=m["host"])
        elif _ROW.search(line):
            s["rows"] = int(s["rows"]) + 1
            s["wrong"] = int(s["wrong"]) + _wrong_in_row(line)
        elif (m := _AVG.search(line)):
            s["avg"], s["complete"] = float(m["bw"]), True
            self.anchor = (line_no, line)
        elif (m := _WRONG.search(line)):
            s["wrong"] = int(m["n"])
        elif "NCCL INFO" in line and (m := _NRANKS.search(line)):
            s["nranks"] = max(int(s["nranks"]), int(m["n"]))

    def finish(self) -> None:
        s = self.state
        if not (s["started"] or s["complete"]):
            return
        line_no, line = self.anchor or (0, "")
        self.ctx.emit(CollectiveBench, line_no, line, op=str(s["op"]), nranks=int(s["nranks"]), gpus=int(s["gpus"]),
                      hosts=len(self.hosts) or -1, avg_busbw=float(s["avg"]), results=int(s["rows"]),
                      wrong=int(s["wrong"]), complete=bool(s["complete"]), started=bool(s["started"]),
                      multi_node=self._multi_node())

    def _multi_node(self) -> bool:
        """Several hosts in the device table, or more ranks than any single node here has GPUs (8 at most)."""
        nranks, gpus = int(self.state["nranks"]), int(self.state["gpus"])
        return len(self.hosts) > 1 or (nranks > 8 and (gpus < 0 or nranks > gpus))
