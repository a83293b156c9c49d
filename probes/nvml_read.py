"""The live half of the NVML probe: read every GPU through nvidia-ml-py (imported here, lazily) and write the
readings as JSON that probes/nvml.py parses, so a bundle replays offline exactly as the node read it.
Runs in its own process (doctor.probing.read), so an NVML call that hangs on a broken GPU is killed."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from doctor.probing.live import NotHere
from probes.nvml import SCHEMA

REASONS = {0x1: "idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
           0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
           0x100: "display_clock_setting"}
P2P = {0: "ok", 1: "chipset_not_supported", 2: "gpu_not_supported", 3: "topology_not_supported",
       4: "disabled_by_regkey", 5: "not_supported", 6: "unknown"}
FABRIC = {0: "not_supported", 1: "not_started", 2: "in_progress", 3: "completed"}


def read_live(args: list[str]) -> str:
    try:
        import pynvml
    except ImportError:
        raise NotHere("nvidia-ml-py (pynvml) is not installed") from None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_LibraryNotFound:
        raise NotHere("NVML library (libnvidia-ml.so) not found: no NVIDIA driver on this node") from None
    try:
        wait_ms = int(args[0]) if args and args[0].isdigit() else 200
        return dump(read_all(pynvml, wait_ms))
    finally:
        pynvml.nvmlShutdown()


def read_all(nv: Any, wait_ms: int) -> dict[str, Any]:
    handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(nv.nvmlDeviceGetCount())]
    devices = [read_device(nv, i, h) for i, h in enumerate(handles)]
    p2p = [{"a": a, "b": b, "status": P2P.get(_try(lambda: nv.nvmlDeviceGetP2PStatus(handles[a], handles[b],
                                                                                       nv.NVML_P2P_CAPS_INDEX_READ)), "unknown")}
           for a in range(len(handles)) for b in range(a + 1, len(handles))]
    return {"doctor": SCHEMA, "driver": _text(_try(nv.nvmlSystemGetDriverVersion)),
            "cuda_driver": _try(nv.nvmlSystemGetCudaDriverVersion), "devices": devices, "p2p": p2p,
            "xid_events": xid_events(nv, handles, wait_ms)}


def read_device(nv: Any, index: int, h: Any) -> dict[str, Any]:
    pci = _try(lambda: nv.nvmlDeviceGetPciInfo(h))
    reasons = _try(lambda: nv.nvmlDeviceGetCurrentClocksEventReasons(h)) or 0
    util = _try(lambda: nv.nvmlDeviceGetUtilizationRates(h))
    mem = _try(lambda: nv.nvmlDeviceGetMemoryInfo(h))
    return {
        "index": index, "name": _text(_try(lambda: nv.nvmlDeviceGetName(h))),
        "bus_id": _text(pci.busId) if pci is not None else "", "uuid": _text(_try(lambda: nv.nvmlDeviceGetUUID(h))),
        "pcie": {"gen": _try(lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h)),
                 "gen_max": _try(lambda: nv.nvmlDeviceGetMaxPcieLinkGeneration(h)),
                 "width": _try(lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h)),
                 "width_max": _try(lambda: nv.nvmlDeviceGetMaxPcieLinkWidth(h))},
        "utilization": {"gpu": getattr(util, "gpu", None), "memory": getattr(util, "memory", None)},
        "memory": {"total": getattr(mem, "total", None), "used": getattr(mem, "used", None)},
        "clocks_event_reasons": [name for bit, name in REASONS.items() if reasons & bit],
        "ecc": read_ecc(nv, h), "remapped_rows": read_remap(nv, h), "fabric": read_fabric(nv, h),
        "nvlinks": read_nvlinks(nv, h), "processes": read_processes(nv, h),
    }


def read_ecc(nv: Any, h: Any) -> dict[str, Any]:
    def total(kind: int, counter: int) -> Any:
        return _try(lambda: nv.nvmlDeviceGetTotalEccErrors(h, kind, counter))
    unc, cor = nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_MEMORY_ERROR_TYPE_CORRECTED
    pages = [_try(lambda c=c: len(nv.nvmlDeviceGetRetiredPages(h, c))) for c in (0, 1)]
    pending = _try(lambda: nv.nvmlDeviceGetRetiredPagesPendingStatus(h))
    return {"volatile_uncorrected": total(unc, nv.NVML_VOLATILE_ECC), "aggregate_uncorrected": total(unc, nv.NVML_AGGREGATE_ECC),
            "volatile_corrected": total(cor, nv.NVML_VOLATILE_ECC),
            "retired_pages": sum(p for p in pages if isinstance(p, int)) if any(isinstance(p, int) for p in pages) else None,
            "retirement_pending": pending == 1 if pending is not None else None}


def read_remap(nv: Any, h: Any) -> dict[str, Any]:
    rows = _try(lambda: nv.nvmlDeviceGetRemappedRows(h))
    if not rows:
        return {}
    corrected, uncorrected, pending, failure = rows
    return {"corrected": corrected, "uncorrected": uncorrected, "pending": bool(pending), "failure": bool(failure)}


def read_fabric(nv: Any, h: Any) -> dict[str, Any]:
    import ctypes
    info_type = getattr(nv, "c_nvmlGpuFabricInfo_t", None)
    if info_type is None:
        return {}
    info = info_type()
    if _try(lambda: nv.nvmlDeviceGetGpuFabricInfo(h, ctypes.byref(info))) is None:
        return {}
    return {"state": FABRIC.get(info.state, str(info.state)), "status": "success" if info.status == 0 else f"error {info.status}"}


def read_nvlinks(nv: Any, h: Any) -> list[dict[str, Any]]:
    links = []
    for link in range(nv.NVML_NVLINK_MAX_LINKS):
        state = _try(lambda: nv.nvmlDeviceGetNvLinkState(h, link))
        if state is None:
            break
        links.append({"link": link, "active": bool(state), "version": _try(lambda: nv.nvmlDeviceGetNvLinkVersion(h, link))})
    return links


def read_processes(nv: Any, h: Any) -> list[dict[str, Any]]:
    procs = (_try(lambda: nv.nvmlDeviceGetComputeRunningProcesses(h)) or []) + \
        (_try(lambda: nv.nvmlDeviceGetGraphicsRunningProcesses(h)) or [])
    return [{"pid": p.pid, "used_bytes": p.usedGpuMemory, **process_state(p.pid)} for p in procs]


def process_state(pid: int) -> dict[str, str]:
    """Name and state of a pid in this node's (or container's) process table."""
    status = Path(f"/proc/{pid}/status")
    try:
        fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
    except OSError:
        return {"name": "", "state": "not_visible"}
    state = fields.get("State", "").strip()
    return {"name": fields.get("Name", "").strip(), "state": "zombie" if state.startswith("Z") else "running"}


def xid_events(nv: Any, handles: list[Any], wait_ms: int) -> list[dict[str, Any]]:
    """Xid errors raised while we wait (NVML reports new events only, not the history)."""
    if wait_ms <= 0 or not handles:
        return []
    events = _try(nv.nvmlEventSetCreate)
    if events is None:
        return []
    for h in handles:
        _try(lambda h=h: nv.nvmlDeviceRegisterEvents(h, nv.nvmlEventTypeXidCriticalError, events))
    seen = []
    data = _try(lambda: nv.nvmlEventSetWait_v2(events, wait_ms))
    while data is not None and len(seen) < 100:
        pci = _try(lambda: nv.nvmlDeviceGetPciInfo(data.device))
        seen.append({"xid": int(data.eventData), "bus_id": _text(pci.busId) if pci is not None else ""})
        data = _try(lambda: nv.nvmlEventSetWait_v2(events, 0))
    _try(lambda: nv.nvmlEventSetFree(events))
    return seen


def dump(data: dict[str, Any]) -> str:
    """JSON with one device per line, so evidence can quote the line of the GPU it is about."""
    devices = data.get("devices", [])
    head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items() if k not in ("devices", "p2p", "xid_events"))
    lines = ["{" + head + ",", ' "devices": [']
    lines += ["  " + json.dumps(d) + ("," if i < len(devices) - 1 else "") for i, d in enumerate(devices)]
    lines += [" ],", f' "p2p": {json.dumps(data.get("p2p", []))},', f' "xid_events": {json.dumps(data.get("xid_events", []))}', "}"]
    return "\n".join(lines) + "\n"


def _try(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception:  # noqa: BLE001 - NVML raises a different NVMLError per unsupported query; absent is absent
        return None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")
