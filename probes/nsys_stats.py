"""Nsight Systems `nsys stats --format csv` reports: NCCL's share of GPU kernel time, idle gaps on the GPU,
synchronisation in the CUDA API.

Sample input (one or more reports, each a CSV table, optionally after a title or "Processing" line):
    Processing [report.sqlite] with [/opt/nvidia/nsight-systems/2024.4.1/host-linux-x64/reports/cuda_gpu_kern_sum.py]...
    Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
    61.2,8123456789,4200,1934156.4,1901234.0,10240,9123456,402311.7,"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, ncclWork *)"
    Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name          (cuda_api_sum)
    Start (ns),Duration (ns),CorrId,GrdX,...,Device,Ctx,Strm,Name                                       (cuda_gpu_trace)

Older releases (2021.x: gpukernsum, cudaapisum, gputrace) name the columns "Time(%)", "Average" etc.;
columns are found by name, so both read the same. Without --format csv, nsys prints each report as columns aligned
under a rule of dashes (" Time (%)  Total Time (ns)  Instances ... Name" then " --------  ---------------  ..."):
the dashes give each column's span, the last one (Name) runs to the end of the line. Each report is named (its
"Processing [...] with [.../cuda_gpu_kern_sum.py]" line or its " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):"
heading): the OS-runtime and NVTX summaries have the same columns as the CUDA API one and are not read as it.
"""
from __future__ import annotations

import csv
import re
from collections import defaultdict
from typing import Iterator

from doctor.facts.measure import CudaApiShare, GpuIdle, KernelShare
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_NCCL = lazy_compile(r"^(?:void\s+)?nccl(?:Dev)?Kernel|^nccl", re.I)
_SYNC = lazy_compile(r"Synchronize", re.I)
_GAP_NS = 1_000_000        # gaps longer than 1 ms are counted


def _header_kind(cells: list[str]) -> str:
    names = {c.strip() for c in cells}
    if "Start (ns)" in names and "Duration (ns)" in names and "Name" in names:
        return "trace"
    if "Total Time (ns)" in names and "Name" in names:
        if "Instances" in names:
            return "kernels"
        if "Num Calls" in names or "Calls" in names:
            return "api"
    return ""


# each report's own name: in "Processing [x.sqlite] with [.../cuda_gpu_kern_sum.py]..." or "** ... (cuda_gpu_kern_sum):"
_REPORT = lazy_compile(r"(?:/(?P<script>\w+)\.py\]|\*\*.*\((?P<heading>\w+)\):)")
REPORT_KINDS = {"cuda_gpu_kern_sum": "kernels", "gpukernsum": "kernels", "cuda_api_sum": "api", "cudaapisum": "api",
                "cuda_gpu_trace": "trace", "gputrace": "trace"}    # any other named report is not read
_RULE = lazy_compile(r"^\s*-+(?:\s+-+)+\s*$")                     # the dashes under an aligned header


def tables(text: str) -> Iterator[tuple[str, int, list[str], list[tuple[int, list[str], str]]]]:
    """(kind, header line number, header cells, [(line number, cells, line)]) for each known report in the text, written
    as CSV or as aligned columns."""
    lines = text.splitlines()
    report, i = "", 0
    while i < len(lines):
        if (m := _REPORT.search(lines[i])):
            report = m["script"] or m["heading"]
        aligned = i + 1 < len(lines) and bool(_RULE.match(lines[i + 1]))
        split = _aligned_splitter(lines[i + 1]) if aligned else _csv_cells
        cells = split(lines[i]) if lines[i].strip() and (aligned or "," in lines[i]) else []
        kind = _header_kind(cells)
        if kind and report:
            kind = kind if REPORT_KINDS.get(report) == kind else ""
        if not kind:
            i += 1
            continue
        header_no, rows = i + 1, []
        i += 2 if aligned else 1
        while i < len(lines) and lines[i].strip() and (aligned or "," in lines[i]) \
                and not lines[i].lstrip().startswith(("Processing", "**")):
            row = split(lines[i])
            if _header_kind(row):
                break
            rows.append((i + 1, row, lines[i]))
            i += 1
        yield kind, header_no, [c.strip() for c in cells], rows


def _csv_cells(line: str) -> list[str]:
    return next(csv.reader([line]))


def _aligned_splitter(rule: str):
    """Cells of a line by the spans of the dash runs under the header; the last span runs to the end of the line."""
    starts = [m.start() for m in re.finditer(r"-+", rule)]

    def cells(line: str) -> list[str]:
        bounds = starts[1:] + [len(line)]
        return [line[a:b].strip() for a, b in zip(starts, bounds)]
    return cells


def _num(cell: str) -> float:
    try:
        return float(cell.replace(",", "").strip() or "nan")
    except ValueError:
        return float("nan")


class NsysStats(DocumentProbe):
    name = "nsys_stats"
    yields = ("profile.kernels", "profile.gpu_idle", "profile.cuda_api")
    max_bytes = 64 * 2**20

    @classmethod
    def sniff(cls, head: str) -> bool:
        if ("Total Time (ns)" in head and ",Name" in head) or ("Start (ns),Duration (ns)" in head):
            return True
        return ("Total Time (ns)" in head or "Duration (ns)" in head) and "Processing [" in head and "--------" in head

    def parse(self, text: str, ctx: ParseContext) -> None:
        for kind, header_no, header, rows in tables(text):
            if not rows:
                continue
            if kind == "kernels":
                self._kernels(header, rows, ctx)
            elif kind == "api":
                self._api(header, rows, ctx)
            else:
                self._trace(header, rows, ctx)

    def _kernels(self, header: list[str], rows: list[tuple[int, list[str], str]], ctx: ParseContext) -> None:
        t, n = header.index("Total Time (ns)"), header.index("Name")
        totals = [(line_no, cells, _num(cells[t]), line) for line_no, cells, line in rows if len(cells) > max(t, n)]
        total = sum(v for _, _, v, _ in totals if v == v)
        nccl = [row for row in totals if row[2] == row[2] and _NCCL.search(row[1][n].strip())]
        nccl_ns = sum(v for _, _, v, _ in nccl)
        if total <= 0:
            return
        anchor = max(nccl, key=lambda r: r[2]) if nccl else max(totals, key=lambda r: r[2] if r[2] == r[2] else -1)
        line_no, cells, _, line = anchor
        ctx.emit(KernelShare, line_no, line, kernels=len(totals), total_s=round(total / 1e9, 6),
                 nccl_s=round(nccl_ns / 1e9, 6), nccl_share=round(nccl_ns / total, 4),
                 top_nccl=cells[n].split("(")[0].strip() if nccl else "")

    def _api(self, header: list[str], rows: list[tuple[int, list[str], str]], ctx: ParseContext) -> None:
        t, n = header.index("Total Time (ns)"), header.index("Name")
        calls = [(line_no, cells, _num(cells[t]), line) for line_no, cells, line in rows if len(cells) > max(t, n)]
        calls = [c for c in calls if c[2] == c[2]]
        total = sum(c[2] for c in calls)
        if total <= 0:
            return
        sync = sum(v for _, cells, v, _ in calls if _SYNC.search(cells[n]))
        line_no, cells, top, line = max(calls, key=lambda c: c[2])
        ctx.emit(CudaApiShare, line_no, line, total_s=round(total / 1e9, 6),
                 sync_share=round(sync / total, 4), top_call=cells[n].strip(), top_share=round(top / total, 4))

    def _trace(self, header: list[str], rows: list[tuple[int, list[str], str]], ctx: ParseContext) -> None:
        s, d = header.index("Start (ns)"), header.index("Duration (ns)")
        dev = header.index("Device") if "Device" in header else -1
        per_device: dict[str, list[tuple[float, float, int, str]]] = defaultdict(list)
        for line_no, cells, line in rows:
            if len(cells) <= max(s, d, dev):
                continue
            start, duration = _num(cells[s]), _num(cells[d])
            if start == start and duration == duration:
                per_device[cells[dev].strip() if dev >= 0 else ""].append((start, start + duration, line_no, line))
        for _device, spans in sorted(per_device.items()):
            self._idle(sorted(spans), ctx)

    def _idle(self, spans: list[tuple[float, float, int, str]], ctx: ParseContext) -> None:
        busy = 0.0
        gaps: list[float] = []
        widest = (0.0, spans[0][2], spans[0][3])
        cur_start, cur_end = spans[0][0], spans[0][1]
        for start, stop, line_no, line in spans[1:]:
            if start > cur_end:
                busy += cur_end - cur_start
                gap = start - cur_end
                gaps.append(gap)
                if gap > widest[0]:
                    widest = (gap, line_no, line)
                cur_start, cur_end = start, stop
            else:
                cur_end = max(cur_end, stop)
        busy += cur_end - cur_start
        end = max(stop for _, stop, _, _ in spans)
        span = end - spans[0][0]
        if span <= 0:
            return
        _, line_no, line = widest
        ctx.emit(GpuIdle, line_no, line, span_s=round(span / 1e9, 6), busy_s=round(busy / 1e9, 6),
                 idle_share=round(1 - busy / span, 4), largest_gap_ms=round(widest[0] / 1e6, 3),
                 gaps_over_1ms=sum(1 for g in gaps if g > _GAP_NS))

