"""The default `nvidia-smi` table: per GPU the memory used of total and the utilisation, and the processes its
Processes section lists (old and new layouts; "No running processes found"); and gpustat's one line per GPU.

Sample input:
    |   0  Tesla P100-SXM2...  Off  | 00000000:05:00.0 Off |                    0 |
    | N/A   36C    P0    41W / 300W |  12799MiB / 16280MiB |      0%      Default |
    | Processes:                                                       GPU Memory |
    |  GPU       PID   Type   Process name                             Usage      |
    |    0     31794    C   Unknown Error                                 5371MiB |
    |    0   N/A  N/A      1395      C   python                          25081MiB |
    [0] Tesla V100-SXM2-32GB | 57°C,  23 % | 12269 / 32510 MB |
"""
from __future__ import annotations

from collections import Counter

from doctor.facts.hardware import GpuMemoryUse
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_NAME_ROW = lazy_compile(r"^\|\s{1,8}(?P<gpu>\d{1,3})\s{1,8}\S.{0,60}\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d")
_USE_ROW = lazy_compile(r"\|\s*(?P<used>\d{1,9})MiB\s*/\s*(?P<total>\d{1,9})MiB\s*\|\s*(?P<util>\d{1,3})%")
_PROC_ROW = lazy_compile(r"^\|\s{0,8}(?P<gpu>\d{1,3})\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?\d{1,9}\s+[CGM+]{1,3}\s+.{0,80}?"
                         r"\s(?:\d{1,9}MiB|N/A)\s*\|\s*$")
_GPUSTAT = lazy_compile(r"^\[(?P<gpu>\d{1,3})\]\s[^|]{1,80}\|\s*\d{1,3}\s*°?C?,\s*(?P<util>\d{1,3})\s*%\s*\|\s*"
                        r"(?P<used>\d{1,9})\s*/\s*(?P<total>\d{1,9})\s*MB\b")
_MIB = 1024 * 1024


class NvidiaSmiTable(LineProbe):
    name = "nvidia_smi_table"
    yields = ("gpu.memory_use",)
    triggers = ("MiB", "Processes:", "No running processes found", "| 0000", " MB")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.gpu = -1
        self.rows: list[tuple[int, str, int, float, float, float]] = []
        self.in_processes = False
        self.listed: Counter[int] = Counter()

    def feed(self, line_no: int, line: str) -> None:
        m = _GPUSTAT.match(line.strip())
        if m:       # gpustat: one GPU per line, no process section
            self.rows.append((line_no, line, int(m["gpu"]), float(m["used"]) * _MIB, float(m["total"]) * _MIB,
                              float(m["util"])))
            return
        if "Processes:" in line:
            self.in_processes = True
            return
        if self.in_processes:
            m = _PROC_ROW.match(line.strip())
            if m:
                self.listed[int(m["gpu"])] += 1
            return
        m = _NAME_ROW.match(line.strip())
        if m:
            self.gpu = int(m["gpu"])
            return
        m = _USE_ROW.search(line)
        if m and self.gpu >= 0:
            self.rows.append((line_no, line, self.gpu, float(m["used"]) * _MIB, float(m["total"]) * _MIB,
                              float(m["util"])))
            self.gpu = -1

    def finish(self) -> None:
        for line_no, line, gpu, used, total, util in self.rows:
            self.ctx.emit(GpuMemoryUse, line_no, line, gpu=gpu, used_bytes=used, total_bytes=total,
                          used_frac=used / total if total else -1.0, util=util,
                          processes=self.listed[gpu] if self.in_processes else -1)
