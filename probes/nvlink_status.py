"""`nvidia-smi nvlink -s`: per GPU, each NVLink's speed or <inactive>.

Sample input:
    GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-ff8a40d4-...)
         Link 0: 25 GB/s
         Link 4: <inactive>
"""
from __future__ import annotations

import re

from doctor.facts.gpu import GpuDevice
from doctor.facts.topo import NvlinkState
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_GPU = lazy_compile(r"^GPU (?P<i>\d+): (?P<name>[^(]+?)\s*\(UUID")
_LINK = lazy_compile(r"^\s+Link (?P<l>\d+): (?:(?P<gbs>[\d.]+) GB/s|<inactive>|(?P<other>.*))")


class NvlinkStatus(DocumentProbe):
    name = "nvlink_status"
    yields = ("nvlink.link", "gpu.device")
    live = ("nvidia-smi", "nvlink", "-s")

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:80]
        return any(_GPU.match(x) for x in lines) and any(_LINK.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        gpu = -1
        for number, line in enumerate(text.splitlines(), start=1):
            m = _GPU.match(line)
            if m:
                gpu = int(m["i"])
                ctx.emit(GpuDevice, number, line, index=gpu, name=m["name"].strip(), consumer=consumer_gpu(m["name"]))
                continue
            m = _LINK.match(line)
            if m and gpu >= 0 and _is_state(m):
                ctx.emit(NvlinkState, number, line, gpu=gpu, link=int(m["l"]), active=m["gbs"] is not None,
                         gbs=float(m["gbs"] or 0))


def _is_state(m: re.Match[str]) -> bool:
    """A link's speed or its inactive mark: `nvlink -s`. Counters of the same shape ("Link 0: Replay Errors: 0",
    `nvidia-smi nvlink -e`) say nothing of whether the link is up."""
    return m["other"] is None or "inactive" in m["other"].lower()


def consumer_gpu(name: str) -> bool:
    return bool(re.search(r"GeForce|RTX \d{4}|GTX|TITAN|Titan", name)) and "RTX A" not in name and "Quadro" not in name
