"""NVML readings (nvidia-ml-py) saved as JSON by probes/nvml_read.py, parsed here, live and offline alike:
devices, PCIe link, utilisation, ECC and row remapping, clocks event reasons, fabric state, NVLink state,
P2P status per GPU pair, processes holding memory, Xid events seen while reading.

Sample input (one device per line, so evidence can cite the line):
    {"doctor": "nvml/1", "driver": "550.54.15", "cuda_driver": 12040,
     "devices": [
      {"index": 0, "name": "NVIDIA H100 80GB HBM3", "bus_id": "00000000:18:00.0", "pcie": {"gen": 5, ...}, ...}
     ],
     "p2p": [{"a": 0, "b": 1, "status": "ok"}], "xid_events": []}
"""
from __future__ import annotations

from typing import Any

from doctor.facts.gpu import GpuDevice, GpuFault
from doctor.facts.hardware import GpuEcc, GpuFabric, GpuP2p, GpuProcess, GpuThrottle, PcieLink
from doctor.facts.topo import NvlinkState
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.lines import json_object
from doctor.probing.live import reader
from probes.nvlink_status import consumer_gpu
from doctor.probing.json_values import json_list

SCHEMA = "nvml/1"
NVLINK_GBS = {1: 20.0, 2: 25.0, 3: 25.0, 4: 25.0, 5: 50.0}    # per link, per direction, by NVLink version
HARDWARE = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


class NvmlReadings(DocumentProbe):
    name = "nvml"
    yields = ("gpu.device", "gpu.pcie", "gpu.ecc", "gpu.throttle", "gpu.fabric", "nvlink.link", "gpu.process",
              "gpu.p2p", "gpu.fault")
    live = reader("probes.nvml_read:read_live")
    timeout_s = 20.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        return f'"doctor": "{SCHEMA}"' in head[:200]

    def parse(self, text: str, ctx: ParseContext) -> None:
        data = json_object(text)
        if data is None:
            return
        lines = text.splitlines()
        for dev in json_list(data.get("devices")):
            if isinstance(dev, dict) and isinstance(dev.get("index"), int):
                number = next((i for i, x in enumerate(lines, 1) if x.lstrip().startswith(f'{{"index": {dev["index"]},')), 0)
                _Device(ctx, dev, number, lines[number - 1] if number else "").emit()
        p2p_line = next((i for i, x in enumerate(lines, 1) if '"p2p"' in x), 0)
        for pair in json_list(data.get("p2p")):
            if isinstance(pair, dict):
                _emit(ctx, GpuP2p, p2p_line, lines, gpu_a=_int(pair.get("a")), gpu_b=_int(pair.get("b")),
                      status=str(pair.get("status", "")))
        xid_line = next((i for i, x in enumerate(lines, 1) if '"xid_events"' in x), 0)
        for event in json_list(data.get("xid_events")):
            if isinstance(event, dict):
                _emit(ctx, GpuFault, xid_line, lines, fault="xid", xid=_int(event.get("xid")),
                      bus_id=str(event.get("bus_id", "")))


def _emit(ctx: ParseContext, cls: type, number: int, lines: list[str], **values: Any) -> None:
    ctx.emit(cls, number, lines[number - 1] if number else "", node=ctx.node, rank=-1, **values)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


class _Device:
    def __init__(self, ctx: ParseContext, dev: dict[str, Any], number: int, line: str) -> None:
        self.ctx, self.dev, self.number, self.line = ctx, dev, number, line
        self.index, self.bus_id = dev["index"], str(dev.get("bus_id", ""))

    def fact(self, cls: type, **values: Any) -> None:
        self.ctx.emit(cls, self.number, self.line, node=self.ctx.node, rank=-1, **values)

    def emit(self) -> None:
        name = str(self.dev.get("name", ""))
        self.fact(GpuDevice, index=self.index, bus_id=self.bus_id, name=name, consumer=consumer_gpu(name))
        reasons = [str(r) for r in json_list(self.dev.get("clocks_event_reasons"))]
        for reason in reasons:
            self.fact(GpuThrottle, gpu=self.index, bus_id=self.bus_id, reason=reason, hardware=reason in HARDWARE)
        self._pcie(name, "idle" in reasons)
        self._ecc()
        fabric = _dict(self.dev.get("fabric"))
        if fabric.get("state") not in (None, "not_supported"):
            self.fact(GpuFabric, gpu=self.index, bus_id=self.bus_id, state=str(fabric.get("state")),
                      status=str(fabric.get("status", "")), ok=fabric.get("state") == "completed" and
                      fabric.get("status") in ("success", "", None))
        for link in json_list(self.dev.get("nvlinks")):
            if isinstance(link, dict):
                gbs = NVLINK_GBS.get(_int(link.get("version")), 0.0) if link.get("active") else 0.0
                self.fact(NvlinkState, gpu=self.index, link=_int(link.get("link")), active=bool(link.get("active")), gbs=gbs)
        for proc in json_list(self.dev.get("processes")):
            if isinstance(proc, dict):
                used = proc.get("used_bytes")
                self.fact(GpuProcess, gpu=self.index, pid=_int(proc.get("pid")), name=str(proc.get("name", "")),
                          used_bytes=float(used) if isinstance(used, (int, float)) else -1.0,
                          state=str(proc.get("state", "unknown")))

    def _pcie(self, name: str, idle: bool) -> None:
        pcie = _dict(self.dev.get("pcie"))
        if "gen" not in pcie:
            return
        values = {k: _int(pcie.get(k)) for k in ("gen", "gen_max", "width", "width_max")}
        util = _int(_dict(self.dev.get("utilization")).get("gpu"))
        load = "busy" if util > 0 else "idle" if idle or util == 0 else "unknown"
        self.fact(PcieLink, gpu=self.index, bus_id=self.bus_id, device=name, **values, load=load, source="nvml",
                  gen_degraded=0 < values["gen"] < values["gen_max"], width_degraded=0 < values["width"] < values["width_max"])

    def _ecc(self) -> None:
        ecc, remap = _dict(self.dev.get("ecc")), _dict(self.dev.get("remapped_rows"))
        if not (ecc or remap):
            return
        self.fact(GpuEcc, gpu=self.index, bus_id=self.bus_id, volatile_uncorrected=_int(ecc.get("volatile_uncorrected")),
                  aggregate_uncorrected=_int(ecc.get("aggregate_uncorrected")),
                  volatile_corrected=_int(ecc.get("volatile_corrected")), retired_pages=_int(ecc.get("retired_pages")),
                  retirement_pending=bool(ecc.get("retirement_pending")), remap_pending=bool(remap.get("pending")),
                  remap_failure=bool(remap.get("failure")),
                  reset_needed=bool(ecc.get("retirement_pending")) or bool(remap.get("pending")))
