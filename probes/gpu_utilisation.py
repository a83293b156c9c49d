"""GPU utilisation logs: `nvidia-smi dmon` and `nvidia-smi --query-gpu=... --format=csv -l N`, summarised per GPU.

Sample input (dmon, any -s selection, optional -o DT date/time columns):
    # gpu   pwr  gtemp  mtemp    sm   mem   enc   dec  rxpci  txpci
    # Idx     W      C      C     %     %     %     %   MB/s   MB/s
        0   410     68     71    97    88     0     0   2210    118
        0    95     61     64    12     9     0     0     31     12
Sample input (--query-gpu CSV; units in the header, in the values unless nounits):
    timestamp, index, utilization.gpu [%], utilization.memory [%]
    2024/05/01 12:00:00.123, 0, 97 %, 45 %

The live NVML sampler (probes/nvml_sampler.py) writes the same CSV shape, so both go through parse_samples.
"""
from __future__ import annotations

import csv
import re
import statistics
from collections import defaultdict
from datetime import datetime

from doctor.facts.perf import GpuUtilisation
from doctor.probing.contract import DocumentProbe, ParseContext

LOW = 30.0                    # a sample below this SM utilisation is "idle"
SPIKY_CV = 0.5                # coefficient of variation above which utilisation swings

# query-gpu header names (and the live sampler's) -> our series
_QUERY_COLUMNS = {"utilization.gpu": "sm", "utilization.memory": "mem", "index": "gpu", "timestamp": "time",
                  "pcie.rx": "rx", "pcie.tx": "tx", "nvlink.rx": "nvrx", "nvlink.tx": "nvtx"}
_DMON_COLUMNS = {"gpu": "gpu", "sm": "sm", "mem": "mem", "rxpci": "rx", "txpci": "tx"}


class Samples:
    """Per-GPU series of numbers, in file order."""

    def __init__(self) -> None:
        self.series: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.first_line: dict[int, tuple[int, str]] = {}
        self.times: dict[int, list[datetime]] = defaultdict(list)

    def add(self, gpu: int, values: dict[str, float], line_no: int, line: str) -> None:
        self.first_line.setdefault(gpu, (line_no, line))
        for name, value in values.items():
            self.series[gpu][name].append(value)


def _number(text: str) -> float | None:
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", text)
    return float(m.group(1)) if m else None


def parse_dmon(text: str) -> Samples:
    samples = Samples()
    columns: list[str] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            names = line.lstrip("#").split()
            if "gpu" in names:
                columns = names
            continue
        cells = line.split()
        if not columns or len(cells) != len(columns):
            continue
        row = dict(zip(columns, cells))
        gpu = _number(row.get("gpu", ""))
        values = {ours: v for theirs, ours in _DMON_COLUMNS.items() if theirs in row and theirs != "gpu"
                  and (v := _number(row[theirs])) is not None}
        if gpu is not None and "sm" in values:
            samples.add(int(gpu), values, line_no, line)
    return samples


def parse_query(text: str) -> Samples:
    samples = Samples()
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "utilization.gpu" in l), None)
    if start is None:
        return samples
    header = [re.sub(r"\s*\[.*?\]", "", h).strip() for h in next(csv.reader([lines[start]]))]
    for line_no, row in enumerate(csv.reader(lines[start + 1:]), start=start + 2):
        if len(row) != len(header):
            continue
        cells = {_QUERY_COLUMNS[h]: c.strip() for h, c in zip(header, row) if h in _QUERY_COLUMNS}
        values = {k: v for k, c in cells.items() if k not in ("gpu", "time") and (v := _number(c)) is not None}
        if "sm" not in values:
            continue
        gpu = int(_number(cells.get("gpu", "0")) or 0)
        samples.add(gpu, values, line_no, lines[line_no - 1])
        when = _time(cells.get("time", ""))
        if when:
            samples.times[gpu].append(when)
    return samples


def _time(text: str) -> datetime | None:
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S.%f"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 2) if values else -1.0


def emit_summaries(samples: Samples, ctx: ParseContext, interval_s: float = -1.0) -> None:
    """One gpu.utilisation fact per GPU with at least two samples."""
    for gpu, series in sorted(samples.series.items()):
        sm = series["sm"]
        if len(sm) < 2:
            continue
        mean = statistics.fmean(sm)
        cv = statistics.pstdev(sm) / mean if mean > 0 else 0.0
        low = sum(v < LOW for v in sm) / len(sm)
        times = samples.times.get(gpu, [])
        window = (times[-1] - times[0]).total_seconds() if len(times) >= 2 else \
            (len(sm) * interval_s if interval_s > 0 else -1.0)
        line_no, line = samples.first_line[gpu]
        ctx.emit(GpuUtilisation, line_no, line, gpu=gpu, samples=len(sm), window_s=round(window, 2),
                 sm_mean=round(mean, 2), sm_p90=sorted(sm)[int(0.9 * (len(sm) - 1))], low_frac=round(low, 4),
                 sm_cv=round(cv, 3), spiky=cv >= SPIKY_CV and 0.1 <= low <= 0.9, mem_bw_mean=_mean(series["mem"]),
                 pcie_rx_mbps=_mean(series["rx"]), pcie_tx_mbps=_mean(series["tx"]),
                 nvlink_rx_mbps=_mean(series["nvrx"]), nvlink_tx_mbps=_mean(series["nvtx"]))


class DmonLog(DocumentProbe):
    name = "nvidia_smi_dmon"
    yields = ("gpu.utilisation",)
    live = ("nvidia-smi", "dmon", "-s", "ut", "-c", "10")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return bool(re.search(r"^#\s*(?:Date\s+Time\s+)?gpu\s+.*\bsm\b", head, re.MULTILINE))

    def parse(self, text: str, ctx: ParseContext) -> None:
        emit_summaries(parse_dmon(text), ctx, interval_s=1.0)


class QueryGpuCsv(DocumentProbe):
    name = "nvidia_smi_query_gpu"
    yields = ("gpu.utilisation",)
    live = ("nvidia-smi", "--query-gpu=timestamp,index,utilization.gpu,utilization.memory", "--format=csv", "-l", "1")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return bool(re.search(r"^[^\n]*utilization\.gpu[^\n]*,|^[^\n]*,\s*utilization\.gpu", head, re.MULTILINE))

    def parse(self, text: str, ctx: ParseContext) -> None:
        emit_summaries(parse_query(text), ctx)
