"""An expectations file: what the cluster's links and collectives should measure (see doctor/expectations.py).

Sample input:
    # doctor expectations
    link_gbps: 10
    busbw_gbs: 90
"""
from __future__ import annotations

import re

import yaml

from doctor.expectations import entries, parse_value
from doctor.facts.measure import METRICS, BenchExpectation
from doctor.facts.status import ProbeStatus
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_KEYS = "|".join(("expect", "expectations", *METRICS))
_LINE = lazy_compile(rf"^\s*(?:{_KEYS})\s*:")


class Expectations(DocumentProbe):
    name = "expectations"
    yields = ("bench.expectation",)
    max_bytes = 64 * 2**10

    @classmethod
    def sniff(cls, head: str) -> bool:
        """Every meaningful line is `metric: value` (or `expect:`), and at least one names a metric."""
        lines = [ln for ln in head.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        return bool(lines) and len(lines) <= 40 and all(_LINE.match(ln) for ln in lines) and \
            any(re.match(rf"^\s*(?:{'|'.join(METRICS)})\s*:", ln) for ln in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as err:
            ctx.emit(ProbeStatus, 0, "", probe=self.name, status="failed", reason=f"{ctx.source}: not YAML ({err})")
            return
        lines = text.splitlines()
        for metric, raw in entries(data):
            line_no = next((i for i, ln in enumerate(lines, 1) if re.match(rf"^\s*{metric}\s*:", ln)), 0)
            line = lines[line_no - 1] if line_no else ""
            try:
                value = parse_value(metric, str(raw))
            except ValueError as err:
                ctx.emit(ProbeStatus, line_no, line, probe=self.name, status="failed", reason=f"{ctx.source}: {err}")
                continue
            ctx.emit(BenchExpectation, line_no, line, node="", metric=metric, value=value, unit=METRICS[metric][0],
                     basis=f"{ctx.source}: {line.strip()}")
