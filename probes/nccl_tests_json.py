"""nccl-tests `-J FILE` JSON output (nccl-tests 2.16+): the same facts as the text output.

Sample input (one line in the real file; keys in this order):
    {"version":1,"start_time":"2025-06-02 10:14:03","args":["./build/all_reduce_perf","-b","8","-e","8G",...],
     "env":["NCCL_IB_HCA=mlx5_0",...],"nccl_version":22703,"config":{"nthreads":1,"ngpus":1,...,
     "devices":[{"rank":0,"group":0,"pid":4711,"hostname":"node-a","device":0,"device_hex":"0000:18:00",
     "device_info":"NVIDIA H100 80GB HBM3"},...]},"results":[{"size":8,"count":2,"type":"float","redop":"sum",
     "root":"    -1","out_of_place":{"time":40.1,"alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0},"in_place":{...},
     "actual_iterations":20,"experiment_name":"AllReduce"},...],"out_of_bounds":{"count":0,"okay":"true"},
     "average_bus_bandwidth":{"bandwidth":23.01,"okay":"unchecked"},"errors":[],"end_time":"..."}

The file is one line, so each fact quotes the JSON fragment it came from instead of a whole line.
"""
from __future__ import annotations

import json
from typing import Any

from doctor.facts.env import EnvVar
from doctor.facts.gpu import GpuDevice
from doctor.facts.measure import CollectiveSize
from doctor.facts.topo import CollectiveBench
from doctor.probing.contract import DocumentProbe, ParseContext
from probes.env_vars import SECRET
from probes.nccl_tests import multi_node
from probes.nvlink_status import consumer_gpu
from doctor.probing.regex import lazy_compile
from doctor.probing.json_values import fragment, json_list, json_obj

_OP = lazy_compile(r"(?P<op>all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|sendrecv)_perf")
_ENV = lazy_compile(r"^(?:NCCL_|CUDA_VISIBLE_DEVICES|UCX_|FI_)")


class NcclTestsJson(DocumentProbe):
    name = "nccl_tests_json"
    yields = ("bench.collective", "bench.collective_size", "gpu.device", "env.var")
    max_bytes = 32 * 2**20

    @classmethod
    def sniff(cls, head: str) -> bool:
        start = head.lstrip()[:200]
        return start.startswith("{") and '"start_time"' in start and '"version"' in start and \
            ('"nccl_version"' in head or '"results"' in head)

    def parse(self, text: str, ctx: ParseContext) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            data = _truncated(text)
        if not isinstance(data, dict):
            return
        config = json_obj(data.get("config"))
        devices = [d for d in json_list(config.get("devices")) if isinstance(d, dict)]
        args = [str(a) for a in json_list(data.get("args"))]
        op = next((m["op"] for a in args if (m := _OP.search(a))), "")
        for var in json_list(data.get("env")):
            name, _, value = str(var).partition("=")
            if _ENV.match(name):
                ctx.emit(EnvVar, 1, fragment(var), name=name, value="<redacted>" if SECRET.search(name) else value,
                         source="nccl_tests_json")
        for d in devices:
            info = str(d.get("device_info", ""))
            ctx.emit(GpuDevice, 1, fragment(d), node=str(d.get("hostname", "")), index=int(_num(d.get("device"), -1)),
                     bus_id=str(d.get("device_hex", "")), name=info, consumer=consumer_gpu(info))
        results = [r for r in json_list(data.get("results")) if isinstance(r, dict)]
        for r in results:
            self._size(r, op, ctx)
        self._bench(data, op, devices, len(results), ctx)

    def _size(self, r: dict[str, Any], op: str, ctx: ParseContext) -> None:
        oop = json_obj(r.get("out_of_place") or r.get("in_place"))
        if not oop:
            return
        wrong = sum(int(_num(c.get("nwrong"))) for c in (r.get("out_of_place"), r.get("in_place"))
                    if isinstance(c, dict) and _num(c.get("nwrong")) > 0)
        ctx.emit(CollectiveSize, 1, fragment(r), op=op or str(r.get("experiment_name", "")).lower(),
                 size=int(_num(r.get("size"), -1)), time_us=_num(oop.get("time", oop.get("cpu_time")), -1),
                 algbw=_num(oop.get("alg_bw"), -1), busbw=_num(oop.get("bus_bw"), -1), wrong=wrong)

    def _bench(self, data: dict[str, Any], op: str, devices: list[dict[str, Any]], rows: int,
               ctx: ParseContext) -> None:
        average = data.get("average_bus_bandwidth")
        complete = isinstance(average, dict)
        bounds = json_obj(data.get("out_of_bounds"))
        hosts = {str(d.get("hostname", "")) for d in devices}
        gpus = int(_num(json_obj(data.get("config")).get("ngpus"), -1))
        nranks = len(devices) or -1
        ctx.emit(CollectiveBench, 1, fragment({"average_bus_bandwidth": average}) if complete else fragment(
                 {"results": rows}), op=op, nranks=nranks, gpus=gpus, hosts=len(hosts) or -1,
                 avg_busbw=_num(average.get("bandwidth"), -1) if complete else -1.0, results=rows,
                 wrong=int(_num(bounds.get("count"))), complete=complete,
                 started=bool(devices) or rows > 0, multi_node=multi_node(len(hosts), nranks, gpus))


def _num(value: Any, default: float = 0.0) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return default if number != number or abs(number) == float("inf") else number      # "nan", 1e999


def _truncated(text: str) -> dict[str, Any] | None:
    """A run killed mid-way leaves the object open: close what was written so far (results up to the cut)."""
    cut = text.rfind('},{"size"')
    if cut < 0:
        return None
    try:
        data = json.loads(text[:cut + 1] + "]}")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
