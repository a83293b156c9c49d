"""Which GPUs a machine has, as environment reports name them: PyTorch's and vLLM's collect_env, `nvidia-smi -L`,
Lightning's environment report. The model says what the hardware can do: GeForce/RTX/Titan cards in one box often
lack working PCIe P2P; SXM parts are NVLink parts.

Sample input:
    GPU models and configuration: GPU 0: NVIDIA H200
    GPU 3: Tesla V100-SXM3-32GB
    GPU 1: Quadro M4000 (UUID: GPU-ad447a04-f6f5-3ccf-c0f7-3218b1919de2)
    * CUDA:
            - GPU:
                    - NVIDIA GeForce RTX 4090
"""
from __future__ import annotations

from doctor.facts.gpu import GpuDevice
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile
from probes.nvlink_status import consumer_gpu

# A model name as NVIDIA's tools print it: a vendor or family word first, so a "GPU 0: <anything>" of another tool
# (a scheduler's "GPU 0: busy") is not read as a model.
_MODEL = r"(?P<name>(?:NVIDIA |Tesla |GeForce |Quadro |TITAN |Titan )[^()\n]{1,60}?)"
_INDEXED = lazy_compile(r"(?:^|\s|:\s)(?:GPU|Device) (?P<i>\d{1,3}): " + _MODEL + r"\s*(?:\(UUID[^)]*\)?)?\s*$")
_LISTED = lazy_compile(r"^\s*-\s+" + _MODEL + r"\s*$")      # Lightning's '- GPU:' list, one model a line
_LIST_HEAD = lazy_compile(r"^\s*-\s+GPU:\s*$")
_ONE = lazy_compile(r"GPU models and configuration:\s*" + _MODEL + r"\s*$")   # an older collect_env, one GPU


class GpuModels(LineProbe):
    name = "gpu_models"
    yields = ("gpu.device",)
    triggers = (": NVIDIA ", ": Tesla ", ": GeForce ", ": Quadro ", ": TITAN ", "- GPU:", "- NVIDIA ", "- Tesla ",
                "- GeForce ", "- Quadro ", "- TITAN ")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.listed = -1          # the next index of Lightning's GPU list, -1 outside one

    def feed(self, line_no: int, line: str) -> None:
        if _LIST_HEAD.match(line):
            self.listed = 0
            return
        m = _INDEXED.search(line)
        if m:
            self._emit(line_no, line, int(m["i"]), m["name"])
            return
        m = _ONE.search(line)
        if m:
            self._emit(line_no, line, 0, m["name"])
            return
        m = _LISTED.match(line)
        if m and self.listed >= 0:
            self._emit(line_no, line, self.listed, m["name"])
            self.listed += 1
            return
        self.listed = -1

    def _emit(self, line_no: int, line: str, index: int, name: str) -> None:
        name = name.strip()
        self.ctx.emit(GpuDevice, line_no, line, index=index, name=name, consumer=consumer_gpu(name))
