"""Live GPU utilisation through NVML (nvidia-ml-py, imported as pynvml only when sampling): a short window.

Every interval it reads, per GPU, SM and memory-controller utilisation, PCIe receive/transmit throughput and,
where the driver offers the field, NVLink data throughput; it writes the rows in the --query-gpu CSV shape and
summarises them with the same parser as an uploaded nvidia-smi log (probes/gpu_utilisation.py), so the live
and the offline paths cannot drift. On a machine without NVML it returns Skipped with the reason.
"""
from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Callable

from doctor.probing.contract import Failed, Ok, Outcome, ParseContext, Skipped
from probes.gpu_utilisation import emit_summaries, parse_query

HEADER = ("timestamp, index, utilization.gpu [%], utilization.memory [%], pcie.rx [MB/s], pcie.tx [MB/s], "
          "nvlink.rx [MB/s], nvlink.tx [MB/s]")


class NvmlUnavailable(Exception):
    """NVML cannot be used here (no library, no driver, no GPU)."""


def _nvml() -> Any:
    try:
        import pynvml
    except ImportError:
        raise NvmlUnavailable("nvidia-ml-py is not installed (pip install 'doctor[nvml]')") from None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        raise NvmlUnavailable(f"NVML did not start: {exc}") from None
    return pynvml


def _nvlink_kib(nvml: Any, handle: Any) -> tuple[float, float] | None:
    """Cumulative NVLink data KiB received/sent, or None when the driver has no such field."""
    try:
        fields = [nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, nvml.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX]
        values = nvml.nvmlDeviceGetFieldValues(handle, fields)
        if any(v.nvmlReturn != nvml.NVML_SUCCESS for v in values):
            return None
        return float(values[0].value.ullVal), float(values[1].value.ullVal)
    except (AttributeError, nvml.NVMLError):
        return None


def sample_csv(seconds: float, interval: float, sleep: Callable[[float], None] = time.sleep) -> str:
    """Sample every GPU for `seconds`; the rows as --query-gpu CSV text. Raises NvmlUnavailable."""
    nvml = _nvml()
    try:
        handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(nvml.nvmlDeviceGetCount())]
        if not handles:
            raise NvmlUnavailable("NVML sees no GPU")
        rows = [HEADER]
        last_link = {i: _nvlink_kib(nvml, h) for i, h in enumerate(handles)}
        last_time = time.monotonic()
        for _ in range(max(2, int(seconds / interval))):
            sleep(interval)
            now, elapsed = time.monotonic(), max(time.monotonic() - last_time, 1e-3)
            last_time = now
            stamp = datetime.now().strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
            for i, handle in enumerate(handles):
                rows.append(_row(nvml, handle, i, stamp, elapsed, last_link))
        return "\n".join(rows) + "\n"
    finally:
        nvml.nvmlShutdown()


def _row(nvml: Any, handle: Any, index: int, stamp: str, elapsed: float, last_link: dict) -> str:
    util = nvml.nvmlDeviceGetUtilizationRates(handle)
    try:
        rx = nvml.nvmlDeviceGetPcieThroughput(handle, nvml.NVML_PCIE_UTIL_RX_BYTES) / 1000
        tx = nvml.nvmlDeviceGetPcieThroughput(handle, nvml.NVML_PCIE_UTIL_TX_BYTES) / 1000
        pcie = f"{rx:.1f}, {tx:.1f}"
    except nvml.NVMLError:
        pcie = ", "
    link, before = _nvlink_kib(nvml, handle), last_link.get(index)
    last_link[index] = link
    nvlink = (f"{(link[0] - before[0]) * 1.024 / elapsed:.1f}, {(link[1] - before[1]) * 1.024 / elapsed:.1f}"
              if link and before else ", ")
    return f"{stamp}, {index}, {util.gpu} %, {util.memory} %, {pcie}, {nvlink}"


def live(seconds: float = 5.0, interval: float = 0.2, ctx: ParseContext | None = None,
         save: str | None = None) -> Outcome:
    """Ok(gpu.utilisation facts), Skipped(no NVML here) or Failed(NVML broke mid-way). save: also write the CSV.
    (doctor scan samples through read_live in its own killable process; doctor util calls this directly.)"""
    ctx = ctx or ParseContext(source="nvml", mode="live", probe="nvml_sampler")
    try:
        text = sample_csv(seconds, interval)
        if save:
            with open(save, "w", encoding="utf-8") as fh:
                fh.write(text)
    except NvmlUnavailable as exc:
        return Skipped(str(exc))
    except Exception as exc:  # noqa: BLE001 - a driver error is an outcome, not a crash
        return Failed(f"NVML sampling failed: {exc.__class__.__name__}: {exc}")
    emit_summaries(parse_query(text), ctx)
    return Ok(tuple(ctx.facts))


def read_live(args: list[str]) -> str:
    """doctor scan / collect's reader (LIVE_PROBES): args[0] seconds of samples, as --query-gpu CSV text."""
    from doctor.probing.live import NotHere
    seconds = float(args[0]) if args and args[0].replace(".", "", 1).isdigit() else 3.0
    try:
        return sample_csv(seconds, 0.2)
    except NvmlUnavailable as exc:
        raise NotHere(str(exc)) from None
