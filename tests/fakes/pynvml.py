"""A stand-in for nvidia-ml-py on machines without a GPU (tests only): two H100s, the second one on an x8 link,
with an inactive NVLink, a pending row remap, a hardware slowdown and an Xid 79 event; three processes
whose pids the test passes in (running, zombie, not in this namespace). Only the calls probes/nvml_read.py
makes exist, with the real signatures; DOCTOR_FAKE_NVML=hang makes nvmlInit block like a wedged driver."""
from __future__ import annotations

import ctypes
import os
import time
from types import SimpleNamespace

NVML_P2P_CAPS_INDEX_READ = 0
NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 0, 1
NVML_VOLATILE_ECC, NVML_AGGREGATE_ECC = 0, 1
NVML_NVLINK_MAX_LINKS = 18
nvmlEventTypeXidCriticalError = 8


class NVMLError(Exception):
    pass


class NVMLError_LibraryNotFound(NVMLError):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


class NVMLError_Timeout(NVMLError):
    pass


class c_nvmlGpuFabricInfo_t(ctypes.Structure):
    _fields_ = [("clusterUuid", ctypes.c_char * 16), ("status", ctypes.c_uint), ("cliqueId", ctypes.c_uint),
                ("state", ctypes.c_ubyte)]


_PIDS = [int(p) for p in os.environ.get("DOCTOR_FAKE_PIDS", "1,2,3").split(",")]
_GPUS = [
    {"name": "NVIDIA H100 80GB HBM3", "bus": "00000000:18:00.0", "gen": 5, "width": 16, "util": 97, "reasons": 0x4,
     "down_links": (), "remap": (0, 0, 0, 0), "unc": 0, "procs": [(_PIDS[0], 70 * 2**30), (_PIDS[1], 6 * 2**30)]},
    {"name": "NVIDIA H100 80GB HBM3", "bus": "00000000:2A:00.0", "gen": 5, "width": 8, "util": 95, "reasons": 0x8 | 0x40,
     "down_links": (3,), "remap": (0, 1, 1, 0), "unc": 1, "procs": [(_PIDS[2], 9 * 2**30)]},
]
_EVENTS = [SimpleNamespace(eventData=79, device=_GPUS[1])]


def nvmlInit() -> None:
    if os.environ.get("DOCTOR_FAKE_NVML") == "hang":
        time.sleep(3600)


def nvmlShutdown() -> None:
    pass


def nvmlSystemGetDriverVersion() -> str:
    return "550.54.15"


def nvmlSystemGetCudaDriverVersion() -> int:
    return 12040


def nvmlDeviceGetCount() -> int:
    return len(_GPUS)


def nvmlDeviceGetHandleByIndex(index: int) -> dict:
    return _GPUS[index]


def nvmlDeviceGetName(handle: dict) -> str:
    return handle["name"]


def nvmlDeviceGetUUID(handle: dict) -> str:
    return "GPU-" + handle["bus"].replace(":", "").replace(".", "")


def nvmlDeviceGetPciInfo(handle: dict) -> SimpleNamespace:
    return SimpleNamespace(busId=handle["bus"].encode())


def nvmlDeviceGetCurrPcieLinkGeneration(handle: dict) -> int:
    return handle["gen"]


def nvmlDeviceGetMaxPcieLinkGeneration(handle: dict) -> int:
    return 5


def nvmlDeviceGetCurrPcieLinkWidth(handle: dict) -> int:
    return handle["width"]


def nvmlDeviceGetMaxPcieLinkWidth(handle: dict) -> int:
    return 16


def nvmlDeviceGetUtilizationRates(handle: dict) -> SimpleNamespace:
    return SimpleNamespace(gpu=handle["util"], memory=handle["util"] // 2)


def nvmlDeviceGetMemoryInfo(handle: dict) -> SimpleNamespace:
    return SimpleNamespace(total=85520809984, free=1 << 30, used=85520809984 - (1 << 30))


def nvmlDeviceGetCurrentClocksEventReasons(handle: dict) -> int:
    return handle["reasons"]


def nvmlDeviceGetTotalEccErrors(handle: dict, error_type: int, counter_type: int) -> int:
    return handle["unc"] if error_type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED else 0


def nvmlDeviceGetRetiredPages(handle: dict, source: int) -> list:
    raise NVMLError_NotSupported("Not Supported")


def nvmlDeviceGetRetiredPagesPendingStatus(handle: dict) -> int:
    raise NVMLError_NotSupported("Not Supported")


def nvmlDeviceGetRemappedRows(handle: dict) -> tuple[int, int, int, int]:
    return handle["remap"]


def nvmlDeviceGetGpuFabricInfo(handle: dict, info) -> int:  # noqa: ANN001 - a ctypes byref, as in nvidia-ml-py
    info._obj.state, info._obj.status = 3, 0
    return 0


def nvmlDeviceGetNvLinkState(handle: dict, link: int) -> int:
    if link >= NVML_NVLINK_MAX_LINKS:
        raise NVMLError_NotSupported("Invalid Argument")
    return 0 if link in handle["down_links"] else 1


def nvmlDeviceGetNvLinkVersion(handle: dict, link: int) -> int:
    return 4


def nvmlDeviceGetComputeRunningProcesses(handle: dict) -> list:
    return [SimpleNamespace(pid=pid, usedGpuMemory=used) for pid, used in handle["procs"]]


def nvmlDeviceGetGraphicsRunningProcesses(handle: dict) -> list:
    return []


def nvmlDeviceGetP2PStatus(a: dict, b: dict, index: int) -> int:
    return 0


def nvmlEventSetCreate() -> object:
    return object()


def nvmlDeviceRegisterEvents(handle: dict, event_types: int, event_set: object) -> None:
    pass


def nvmlEventSetWait_v2(event_set: object, timeout_ms: int) -> SimpleNamespace:
    if _EVENTS:
        return _EVENTS.pop()
    raise NVMLError_Timeout("Timeout")


def nvmlEventSetFree(event_set: object) -> None:
    pass
