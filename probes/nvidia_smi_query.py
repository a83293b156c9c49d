"""`nvidia-smi -q`: per GPU the PCIe link (current vs max generation and width), clocks event (throttle)
reasons, ECC counts, retired pages / remapped rows, NVSwitch fabric state and the processes holding memory.
Whole reports and pasted sections (`nvidia-smi -q | grep -A8 'Clocks Throttle'`) alike.

Sample input:
    GPU 00000000:19:00.0
        Product Name                          : NVIDIA H100 80GB HBM3
        PCI
            GPU Link Info
                PCIe Generation
                    Max                       : 5
                    Current                   : 5
                Link Width
                    Max                       : 16x
                    Current                   : 8x
        Clocks Event Reasons
            HW Slowdown                       : Active
        Remapped Rows
            Pending                           : No
            Remapping Failure Occurred        : Yes
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from doctor.facts.gpu import GpuDevice
from doctor.facts.hardware import GpuEcc, GpuFabric, GpuProcess, GpuThrottle, PcieLink
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.lines import to_bytes
from probes.nvlink_status import consumer_gpu
from doctor.probing.regex import lazy_compile

_GPU = lazy_compile(r"^GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_SECTIONS = ("NVSMI LOG", "Attached GPUs", "GPU Link Info", "Clocks Event Reasons", "Clocks Throttle Reasons",
             "ECC Errors", "Retired Pages", "Remapped Rows", "Product Name")
_THROTTLE = ("Clocks Event Reasons", "Clocks Throttle Reasons")
_HARDWARE = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


def _entry(line: str) -> tuple[int, str, str | None] | None:
    """(indent, key, value) of `   Key : value` (value None for `Key` or `Key :`); None for `key:value`.

    Written out by hand: the regular expression it replaces (three runs of optional spaces around the key and the
    colon) was cubic on a line of ':' and 2,000 spaces."""
    body = line.lstrip(" ")
    if not body or body[0].isspace():
        return None
    cut = body.find(":", 1)
    if cut < 0:
        return len(line) - len(body), body.rstrip(), None
    rest = body[cut + 1:]
    if rest and not rest[0].isspace():
        return None
    return len(line) - len(body), body[:cut].rstrip(), rest.strip() if rest else None


@dataclass
class _Entry:
    path: tuple[str, ...]          # section names above this key, outermost first
    key: str
    value: str | None              # None for a section heading
    number: int
    line: str


@dataclass
class _Gpu:
    index: int
    bus_id: str
    entries: list[_Entry] = field(default_factory=list)


class NvidiaSmiQuery(DocumentProbe):
    name = "nvidia_smi_query"
    yields = ("gpu.device", "gpu.pcie", "gpu.throttle", "gpu.ecc", "gpu.fabric", "gpu.process")
    live = ("nvidia-smi", "-q")
    timeout_s = 20.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:400]
        sections = any(line.strip().split(" :")[0].strip() in _SECTIONS for line in lines)
        return (sections or "NVSMI LOG" in head) and any(" : " in line for line in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        for gpu in _split(text):
            _Reading(ctx, gpu).emit()


def _split(text: str) -> list[_Gpu]:
    gpus: list[_Gpu] = [_Gpu(-1, "")]
    stack: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        m = _GPU.match(line)
        if m:
            gpus.append(_Gpu(len(gpus) - 1, m["bus"]))
            stack = []
            continue
        e = _entry(line.replace("\t", "    "))
        if not e or not line.strip():
            continue
        indent, key, value = e
        while stack and stack[-1][0] >= indent:
            stack.pop()
        gpus[-1].entries.append(_Entry(tuple(name for _, name in stack), key, value, number, line))
        stack.append((indent, key))
    if len(gpus) > 1 and not any(x.value for x in gpus[0].entries if x.path):
        gpus.pop(0)                # the header before the first GPU (driver version, counts)
    return gpus


class _Reading:
    """Turns one GPU's entries into facts."""

    def __init__(self, ctx: ParseContext, gpu: _Gpu) -> None:
        self.ctx, self.gpu = ctx, gpu
        self.bus_id = gpu.bus_id or next((e.value or "" for e in gpu.entries if e.key == "Bus Id"), "")

    def emit(self) -> None:
        self._device()
        idle = self._throttle()
        self._pcie(idle)
        self._ecc()
        self._fabric()
        self._processes()

    def _fact(self, cls: type, entry: _Entry, **values: object) -> None:
        self.ctx.emit(cls, entry.number, entry.line, node=self.ctx.node, rank=-1, **values)

    def _find(self, *suffix: str) -> _Entry | None:
        for e in self.gpu.entries:
            if (*e.path, e.key)[-len(suffix):] == suffix and e.value not in (None, "", "N/A"):
                return e
        return None

    def _device(self) -> None:
        e = self._find("Product Name")
        if e and e.value:
            self._fact(GpuDevice, e, index=self.gpu.index, bus_id=self.bus_id, name=e.value, consumer=consumer_gpu(e.value))

    def _throttle(self) -> bool | None:
        idle: bool | None = None
        for e in self.gpu.entries:
            if not (set(_THROTTLE) & set(e.path)) or e.value not in ("Active", "Not Active"):
                continue
            reason = re.sub(r"[^a-z0-9]+", "_", e.key.lower()).strip("_")
            if reason == "idle":
                idle = e.value == "Active"
            if e.value == "Active":
                self._fact(GpuThrottle, e, gpu=self.gpu.index, bus_id=self.bus_id, reason=reason, hardware=reason in _HARDWARE)
        return idle

    def _pcie(self, idle: bool | None) -> None:
        gen, gen_max = self._find("PCIe Generation", "Current"), self._find("PCIe Generation", "Max")
        width, width_max = self._find("Link Width", "Current"), self._find("Link Width", "Max")
        anchor = width or gen
        if not anchor:
            return
        values = {name: _int(e) for name, e in (("gen", gen), ("gen_max", gen_max), ("width", width), ("width_max", width_max))}
        util = _int(self._find("Utilization", "Gpu"))
        load = "busy" if util > 0 or idle is False else "idle" if idle or util == 0 else "unknown"
        name = self._find("Product Name")
        self._fact(PcieLink, anchor, gpu=self.gpu.index, bus_id=self.bus_id, device=name.value if name else "", **values,
                   load=load, source="nvidia-smi",
                   gen_degraded=0 < values["gen"] < values["gen_max"],
                   width_degraded=0 < values["width"] < values["width_max"])

    def _ecc(self) -> None:
        counts = {"volatile_uncorrected": -1, "aggregate_uncorrected": -1, "volatile_corrected": -1, "retired_pages": -1}
        flags = {"retirement_pending": False, "remap_pending": False, "remap_failure": False}
        seen: list[_Entry] = []
        alarming: list[_Entry] = []        # the lines evidence should quote: a count above zero, a Yes
        for e in self.gpu.entries:
            if e.value is None or e.value == "N/A":
                continue
            counter = _ecc_counter(e)
            if counter:
                counts[counter] = max(counts[counter], 0) + _int(e)
                alarming += [e] if counter == "volatile_uncorrected" and _int(e) > 0 else []
            elif "Retired Pages" in e.path and e.key.startswith("Pending"):
                flags["retirement_pending"] = e.value.lower() == "yes"
            elif "Retired Pages" in e.path and _int(e) >= 0 and ("ECC" in e.key or e.key == "Count"):
                counts["retired_pages"] = max(counts["retired_pages"], 0) + _int(e)
            elif "Remapped Rows" in e.path and e.key in ("Pending", "Remapping Failure Occurred"):
                flags["remap_pending" if e.key == "Pending" else "remap_failure"] = e.value.lower() == "yes"
            else:
                continue
            seen.append(e)
            alarming += [e] if e.value.lower() == "yes" else []
        if seen:
            self._fact(GpuEcc, (alarming or seen)[0], gpu=self.gpu.index, bus_id=self.bus_id, **counts, **flags,
                       reset_needed=flags["retirement_pending"] or flags["remap_pending"])

    def _fabric(self) -> None:
        state, status = self._find("Fabric", "State"), self._find("Fabric", "Status")
        if state and state.value not in ("Not Supported", "N/A"):
            status_text = status.value if status and status.value else ""
            ok = state.value == "Completed" and status_text.lower() in ("", "success", "n/a")
            self._fact(GpuFabric, state, gpu=self.gpu.index, bus_id=self.bus_id, state=state.value, status=status_text, ok=ok)

    def _processes(self) -> None:
        current: dict[str, object] = {}
        for e in self.gpu.entries:
            if "Processes" not in e.path or e.value is None:
                continue
            if e.key == "Process ID":
                self._process(current)
                current = {"entry": e, "pid": _int(e)}
            elif e.key == "Name" and current:
                current["name"] = e.value
                current["state"] = "not_visible" if e.value == "[Not Found]" else "unknown"
            elif e.key == "Used GPU Memory" and current:
                m = re.match(r"([\d.]+)\s*(\w+)", e.value)
                current["used_bytes"] = to_bytes(m[1], m[2]) if m else -1.0
        self._process(current)

    def _process(self, current: dict[str, object]) -> None:
        entry = current.pop("entry", None)
        if isinstance(entry, _Entry):
            self._fact(GpuProcess, entry, gpu=self.gpu.index, **current)


def _ecc_counter(e: _Entry) -> str:
    if "ECC Errors" not in e.path or _int(e) < 0:
        return ""
    scope = "volatile" if "Volatile" in e.path else "aggregate" if "Aggregate" in e.path else ""
    bits = " ".join(e.path)
    uncorrected = "Uncorrectable" in e.key or ("Double Bit" in bits and e.key == "Total")
    corrected = (not uncorrected) and ("Correctable" in e.key or ("Single Bit" in bits and e.key == "Total"))
    if scope and uncorrected:
        return f"{scope}_uncorrected"
    if scope == "volatile" and corrected:
        return "volatile_corrected"
    return ""


def _int(e: _Entry | None) -> int:
    m = re.match(r"\s*(\d+)", e.value or "") if e else None
    return int(m[1]) if m else -1
