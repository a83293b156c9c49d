"""The link class a GPU model implies, and the bus bandwidth a collective reaches on it inside one node.

Figures are what all_reduce_perf reports as busbw on healthy machines of each generation (NVIDIA's
nccl-tests results and DGX/HGX data sheets: NVLink 2 about 130 GB/s, NVLink 3 about 230, NVLink 4 about 360,
NVLink 5 about 700; PCIe Gen4 x16 about 20, Gen5 about 40). A measured bandwidth far below the NVLink figure
on an SXM part means the collective did not travel over NVLink.
"""
from __future__ import annotations

import re

# (pattern on the deviceProperties name, link, busbw GB/s); first match wins, PCIe/consumer parts first
LINK_CLASSES: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"PCIe|PCIE|RTX|GeForce|TITAN|Quadro|\bT4\b|\bL4\b|\bL40|\bA10\b|\bA16\b|\bA30\b|\bA40\b|\bA2\b"),
     "pcie", 20.0),
    (re.compile(r"\bGB?200\b|\bB100\b|\bB200\b|\bB300\b"), "nvlink", 700.0),
    (re.compile(r"\bH100\b|\bH200\b|\bH800\b|\bH20\b|\bGH200\b"), "nvlink", 360.0),
    (re.compile(r"\bA100\b|\bA800\b"), "nvlink", 230.0),
    (re.compile(r"\bV100\b"), "nvlink", 130.0),
)


def link_class(gpu_name: str) -> tuple[str, float]:
    """('nvlink' | 'pcie' | 'unknown', busbw GB/s) for a GPU model name."""
    for pattern, link, gbps in LINK_CLASSES:
        if pattern.search(gpu_name):
            return link, gbps
    return "unknown", -1.0
