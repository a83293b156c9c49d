"""torch / CUDA / NCCL / driver versions of this node, written in collect_env's wording so the versions line
probe reads them live and offline alike. torch is imported only when it is installed (and only here, in
the reader's own process)."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import re
from pathlib import Path

PACKAGES = ("torch", "nvidia-nccl-cu12", "nvidia-nccl-cu11", "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu11",
            "deepspeed", "accelerate", "nvidia-ml-py", "triton")


def read_live(_args: list[str]) -> str:
    lines = ["# doctor node versions", f"Python version: {platform.python_version()}", f"Kernel: {platform.release()}"]
    lines += _torch()
    driver = _driver()
    lines.append(f"Nvidia driver version: {driver}" if driver else "# NVIDIA driver: /proc/driver/nvidia/version absent")
    for name in PACKAGES:
        try:
            lines.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return "\n".join(lines) + "\n"


def _torch() -> list[str]:
    if importlib.util.find_spec("torch") is None:
        return ["# torch: not installed in this Python"]
    try:
        import torch
    except Exception as exc:  # noqa: BLE001 - a broken install is a finding to print, not a crash
        return [f"# torch: import failed: {exc.__class__.__name__}: {exc}"]
    lines = [f"PyTorch version: {torch.__version__}", f"CUDA used to build PyTorch: {torch.version.cuda or 'None'}"]
    try:
        nccl = torch.cuda.nccl.version()
        lines.append("nccl==" + ".".join(str(x) for x in (nccl if isinstance(nccl, tuple) else (nccl,))))
    except Exception:  # noqa: BLE001 - CPU builds have no NCCL
        lines.append("# NCCL: not built into this torch")
    return lines


def _driver() -> str:
    try:
        text = Path("/proc/driver/nvidia/version").read_text()
    except OSError:
        return ""
    m = re.search(r"Kernel Module(?: for \w+)?\s+(\d+(?:\.\d+)+)", text)
    return m[1] if m else ""
