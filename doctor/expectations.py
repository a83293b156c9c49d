"""What measurements should reach: `--expect link_gbps=10` on the command line, or an expectations file.

An expectations file is a small YAML mapping of metric -> value (optionally under `expect:`), e.g.

    # doctor expectations for this cluster
    link_gbps: 10        # TCP between nodes (iperf3), Gbit/s
    rdma_gbps: 180       # one NIC pair, ib_write_bw
    busbw_gbs: 90        # nccl-tests all_reduce at large messages

Values may carry a unit ("10 Gbit/s", "25GB/s", "800 Mbit/s"); it is converted to the metric's unit.
Share metrics (nccl_kernel_share, gpu_idle_share) take a fraction (0.3) or a percentage ("30%").
"""
from __future__ import annotations

import re

from doctor.errors import UsageError
from doctor.facts import Origin
from doctor.facts.measure import METRICS, BenchExpectation

_VALUE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>[A-Za-z%/]*)\s*$")
# unit words -> factor to the metric's own unit, by the metric's unit
_TO_GBIT = {"": 1.0, "g": 1.0, "gb/s": 1.0, "gbit/s": 1.0, "gbps": 1.0, "gbit": 1.0, "m": 1e-3, "mb/s": 1e-3,
            "mbit/s": 1e-3, "mbps": 1e-3, "mbit": 1e-3, "t": 1e3, "tbit/s": 1e3, "gbyte/s": 8.0}
_TO_GBYTE = {"": 1.0, "gb/s": 1.0, "gbyte/s": 1.0, "gib/s": 1.073741824, "mb/s": 1e-3, "gbit/s": 0.125,
             "gbps": 0.125}
_TO_US = {"": 1.0, "us": 1.0, "usec": 1.0, "µs": 1.0, "ms": 1e3, "ns": 1e-3}
_TO_SHARE = {"": 1.0, "%": 0.01}
_FACTORS = {"Gbit/s": _TO_GBIT, "GB/s": _TO_GBYTE, "us": _TO_US, "share": _TO_SHARE}


def parse_value(metric: str, text: str) -> float:
    """'10 Gbit/s' for link_gbps -> 10.0. Raises ValueError with a readable reason."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r} (one of {', '.join(METRICS)})")
    m = _VALUE.match(str(text))
    if not m:
        raise ValueError(f"{metric}: {text!r} is not a number with an optional unit")
    unit = METRICS[metric][0]
    # "GB/s" means gigabytes for busbw and gigabits nowhere: keep case for that one distinction
    word = m["unit"].lower()
    if unit == "Gbit/s" and m["unit"] in ("GB/s", "GByte/s"):
        word = "gbyte/s"
    factor = _FACTORS[unit].get(word)
    if factor is None:
        raise ValueError(f"{metric}: unit {m['unit']!r} does not fit {unit}")
    value = float(m["num"]) * factor
    if unit == "share" and value > 1 and not m["unit"]:
        value /= 100.0            # "30" for a share means 30 %
    if value <= 0:
        raise ValueError(f"{metric}: the expected value must be above 0")
    return round(value, 9)


def from_option(text: str) -> BenchExpectation:
    """`link_gbps=10` -> a BenchExpectation. Raises UsageError (exit 2) on anything else."""
    name, sep, value = text.partition("=")
    if not sep:
        raise UsageError(f"--expect {text}: write METRIC=VALUE, e.g. link_gbps=10")
    try:
        number = parse_value(name.strip(), value)
    except ValueError as err:
        raise UsageError(f"--expect {text}: {err}") from None
    metric = name.strip()
    return BenchExpectation(node="", origin=Origin(f"--expect {text}", 0, f"--expect {text}", "expect", "file"),
                            metric=metric, value=number, unit=METRICS[metric][0], basis=f"--expect {text}")


def entries(data: object) -> list[tuple[str, object]]:
    """The metric: value pairs of a loaded expectations document (top level or under expect:)."""
    if not isinstance(data, dict):
        return []
    for key in ("expect", "expectations"):
        if isinstance(data.get(key), dict):
            data = data[key]
            break
    return [(str(k), v) for k, v in data.items() if str(k) in METRICS]  # type: ignore[union-attr]
