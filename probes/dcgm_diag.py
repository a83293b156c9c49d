"""NVIDIA DCGM diagnostics (`dcgmi diag -r 1..4`): the tests that failed a GPU.

The results table names each test in its left column and "Pass - All" / "Pass - GPUs: 1, 2" / "Fail - GPU: 0" in
the right one; a test's further results continue on rows with an empty left column, and its details follow as
"Warning" / "Info" rows. A deployment check that finds a broken GPU says so in an "Error" row. Only failures that
name GPUs (or "All") are read: deployment checks such as "Persistence Mode | Fail" name no GPU and judge the setup,
not the hardware.

Sample input (real output, fixtures/probes/dcgm_diag):
    | GPU Memory                | Pass - GPUs: 1, 2, 3, 4, 5, 6, 7               |
    |                           | Fail - GPU: 0                                  |
    | Error                     | GPU 3 has uncorrectable memory errors and row  |
"""
from __future__ import annotations

from doctor.facts.gpu import GpuDiagnostic
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_ROW = lazy_compile(r"^\|\s*(?P<test>[^|]{0,40}?)\s*\|\s*(?P<result>[^|]{0,120}?)\s*\|?\s*$")
_FAIL = lazy_compile(r"\bFail\s*-\s*(?:GPUs?\s*:\s*(?P<gpus>\d{1,3}(?:\s*,\s*\d{1,3})*)|(?P<all>All)\b)")
_ERROR_GPU = lazy_compile(r"^GPU (?P<gpu>\d{1,3}) has uncorrectable memory errors")
_DETAIL_ROWS = ("Warning", "Info", "Error")


class DcgmDiag(LineProbe):
    name = "dcgm_diag"
    yields = ("gpu.diagnostic",)
    # the rows that name a test must reach the probe too: a failure on a continuation row belongs to the test above
    triggers = ("Fail - GPU", "Fail - All", "has uncorrectable memory errors", "Pass - ", "Skip - ", "Warn - ")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.test = ""

    def feed(self, line_no: int, line: str) -> None:
        m = _ROW.match(line.strip())
        if not m:
            return
        test, result = m["test"], m["result"]
        if test and test not in _DETAIL_ROWS and not test.startswith("-"):
            self.test = test
        if test == "Error" and (e := _ERROR_GPU.match(result)):
            self.ctx.emit(GpuDiagnostic, line_no, line, test="Deployment", gpus=e["gpu"])
            return
        if test in _DETAIL_ROWS or not self.test:
            return
        f = _FAIL.search(result)
        if f:
            gpus = "all" if f["all"] else ",".join(g.strip() for g in f["gpus"].split(","))
            self.ctx.emit(GpuDiagnostic, line_no, line, test=self.test, gpus=gpus)
