"""Package and driver versions: pip freeze/list, conda list, collect_env, nvidia-smi's header, version lines.

Sample input:
    nvidia-nccl-cu12==2.20.5
    [pip3] torch==2.1.0+cu121
    PyTorch version: 2.1.0+cu121
    Nvidia driver version: 535.104.05
    (VllmWorker rank=0 pid=4887) INFO 07-08 10:09:09 [pynccl.py:70] vLLM is using nccl==2.26.2
    | NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |
"""
from __future__ import annotations

import re

from doctor.facts.env import PackageVersion
from doctor.probing.contract import LineProbe
from doctor.probing.lines import version_num
from doctor.probing.regex import lazy_compile

_PIN = lazy_compile(r"^\s*(?:\[(?:pip3?|conda)\]\s*)?(?P<name>[A-Za-z0-9][\w.\-]*)==(?P<v>[\w.+!\-]+)\s*$")
_COLLECT_ENV: tuple[tuple[re.Pattern[str], str], ...] = (
    (lazy_compile(r"^PyTorch version:\s*(?P<v>\S+)"), "torch"),
    (lazy_compile(r"^CUDA used to build PyTorch:\s*(?P<v>[\d.]+)"), "cuda_build"),
    (lazy_compile(r"^CUDA runtime version:\s*(?P<v>[\d.]+)"), "cuda_runtime"),
    (lazy_compile(r"(?:Nvidia driver version|Driver Version|驱动版本)\s*[:：]\s*(?P<v>[\d.]+)"), "driver"),
    (lazy_compile(r"CUDA Version:\s*(?P<v>[\d.]+)"), "cuda_driver_api"),
    (lazy_compile(r"^\s*(?:\[conda\]\s*)?(?P<name>pytorch|torch|nccl|nvidia-nccl-cu\d+|cudatoolkit)\s+(?P<v>\d[\w.+]*)\s+\S+"), ""),
    (lazy_compile(r"(?:vLLM|sglang|SGLang) is using nccl==(?P<v>\d[\w.]*)"), "nccl"),   # their pynccl: the NCCL loaded
)


def normalise(name: str) -> str:
    low = name.lower().replace("_", "-")
    return "torch" if low in ("pytorch", "torch") else low


class Versions(LineProbe):
    name = "versions"
    yields = ("pkg.version",)
    # a pin is name==<digit>...: "==" alone is a 2-byte literal that slows the whole trigger scan by a quarter
    triggers = tuple(f"=={digit}" for digit in "0123456789") + ("version:", "Version:", "驱动版本", "[conda]", "CUDA used to build")

    def feed(self, line_no: int, line: str) -> None:
        m = _PIN.match(line)
        if m:
            self._emit(line_no, line, normalise(m["name"]), m["v"])
            return
        for pattern, name in _COLLECT_ENV:
            m = pattern.search(line)
            if m:
                self._emit(line_no, line, name or normalise(m["name"]), m["v"])

    def _emit(self, n: int, line: str, name: str, version: str) -> None:
        self.ctx.emit(PackageVersion, n, line, name=name, version=version, version_num=version_num(version))
