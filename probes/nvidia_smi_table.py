"""The default `nvidia-smi` table: per GPU its model and bus id, the memory used of total and the utilisation, and the processes its
Processes section lists (old and new layouts; "No running processes found"); and gpustat's one line per GPU.
Each listed process is also a gpu.process (pid, name, memory); a name nvidia-smi could not read ("Unknown Error",
the table's counterpart of `nvidia-smi -q`'s "[Not Found]") gives state not_visible, any other name state unknown.

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

import re
from collections import Counter

from doctor.facts.gpu import GpuDevice
from doctor.facts.hardware import GpuMemoryUse, GpuProcess
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile
from probes.nvlink_status import consumer_gpu

_NAME_ROW = lazy_compile(r"^\|\s{1,8}(?P<gpu>\d{1,3})\s{1,8}(?P<name>\S.{0,60}?)\s*(?:\s(?:On|Off|N/A))?\s*\|\s*(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)")
_USE_ROW = lazy_compile(r"\|\s*(?P<used>\d{1,9})MiB\s*/\s*(?P<total>\d{1,9})MiB\s*\|\s*(?P<util>\d{1,3})%")
_PROC_ROW = lazy_compile(r"^\|\s{0,8}(?P<gpu>\d{1,3})\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(?P<pid>\d{1,9})\s+[CGM+]{1,3}\s+"
                         r"(?P<name>.{0,80}?)\s+(?:(?P<used>\d{1,9})MiB|N/A)\s*\|\s*$")
# what nvidia-smi prints in the name column when NVML cannot read the process's name (the pid is gone or not visible)
_UNREADABLE_NAMES = ("Unknown Error", "[Not Found]")
_GPUSTAT = lazy_compile(r"^\[(?P<gpu>\d{1,3})\]\s[^|]{1,80}\|\s*\d{1,3}\s*°?C?,\s*(?P<util>\d{1,3})\s*%\s*\|\s*"
                        r"(?P<used>\d{1,9})\s*/\s*(?P<total>\d{1,9})\s*MB\b")
_MIB = 1024 * 1024


class NvidiaSmiTable(LineProbe):
    name = "nvidia_smi_table"
    yields = ("gpu.memory_use", "gpu.process", "gpu.device")
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
                self._process(line_no, line, m)
            return
        m = _NAME_ROW.match(line.strip())
        if m:
            self.gpu = int(m["gpu"])
            self.ctx.emit(GpuDevice, line_no, line, index=self.gpu, bus_id=m["bus"], name=m["name"],
                          consumer=consumer_gpu(m["name"]))
            return
        m = _USE_ROW.search(line)
        if m and self.gpu >= 0:
            self.rows.append((line_no, line, self.gpu, float(m["used"]) * _MIB, float(m["total"]) * _MIB,
                              float(m["util"])))
            self.gpu = -1

    def _process(self, line_no: int, line: str, m: re.Match[str]) -> None:
        name = m["name"].strip()
        self.ctx.emit(GpuProcess, line_no, line, gpu=int(m["gpu"]), pid=int(m["pid"]), name=name,
                      used_bytes=float(m["used"]) * _MIB if m["used"] else -1.0,
                      state="not_visible" if name in _UNREADABLE_NAMES else "unknown")

    def finish(self) -> None:
        for line_no, line, gpu, used, total, util in self.rows:
            self.ctx.emit(GpuMemoryUse, line_no, line, gpu=gpu, used_bytes=used, total_bytes=total,
                          used_frac=used / total if total else -1.0, util=util,
                          processes=self.listed[gpu] if self.in_processes else -1)
