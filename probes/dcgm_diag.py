"""NVIDIA DCGM diagnostics (`dcgmi diag -r 1..4`): the tests that failed a GPU.

Two table layouts. Up to DCGM 3.x the right column says "Pass - All" / "Pass - GPUs: 1, 2" / "Fail - GPU: 0" on the
test's row and its continuation rows (an empty left column), details follow as "Warning" / "Info" rows, and a
deployment check that finds a broken GPU says so in an "Error" row. From DCGM 3.3/4.x the test's row carries the
overall result alone ("| memory | Fail |"), each GPU gets a row of its own ("|  | GPU0: Fail |") and a GPU's details a
"Warning: GPU0" row (dcgmi/Diag.cpp, HelperDisplayEntityResults). Only failures that name GPUs are read: a deployment
check ("Persistence Mode | Fail" of 3.x; 4.x's `software` test, which fails a GPU row for persistence mode off) judges
the setup, not the hardware, and a test that failed with every GPU row passing failed itself (DCGM#253: the pcie
test's child process died, every GPU passed).

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
_GPU_RESULT = lazy_compile(r"^GPU(?P<gpu>\d{1,3}):\s*(?P<result>Pass|Fail|Warn|Skip)\b")   # 4.x: a GPU's own row
_ERROR_GPU = lazy_compile(r"^GPU (?P<gpu>\d{1,3}) has uncorrectable memory errors")
_DETAIL_ROWS = ("Warning", "Info", "Error")
_DETAIL_OF_GPU = lazy_compile(r"^(?:Warning|Info|Error): GPU\d")   # 4.x: "Warning: GPU0" ("Inforom" is a test)
SETUP_TESTS = ("software",)     # DCGM 4.x's deployment checks, one test: its GPU rows judge the setup
# the rows that name a test must reach the probe too: a failure on a continuation row belongs to the test above.
# "| Fail  " etc. are 4.x's test rows: the result column is padded, so the word is followed by spaces.
TRIGGERS = ("Fail - GPU", "Fail - All", "has uncorrectable memory errors", "Pass - ", "Skip - ", "Warn - ",
            "| Pass  ", "| Fail  ", "| Warn  ", "| Skip  ", ": Fail  ")


class DcgmDiag(LineProbe):
    name = "dcgm_diag"
    yields = ("gpu.diagnostic",)
    triggers = TRIGGERS

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.test = ""

    def feed(self, line_no: int, line: str) -> None:
        m = _ROW.match(line.strip())
        if not m:
            return
        test, result = m["test"], m["result"]
        detail = test in _DETAIL_ROWS or bool(_DETAIL_OF_GPU.match(test))
        if test and not detail and not test.startswith("-"):
            self.test = test
        if detail and (e := _ERROR_GPU.match(result)):
            self.ctx.emit(GpuDiagnostic, line_no, line, test="Deployment", gpus=e["gpu"])
            return
        if detail or not self.test:
            return
        if (g := _GPU_RESULT.match(result)):
            if g["result"] == "Fail" and self.test not in SETUP_TESTS:
                self.ctx.emit(GpuDiagnostic, line_no, line, test=self.test, gpus=g["gpu"])
            return
        f = _FAIL.search(result)
        if f:
            gpus = "all" if f["all"] else ",".join(g.strip() for g in f["gpus"].split(","))
            self.ctx.emit(GpuDiagnostic, line_no, line, test=self.test, gpus=gpus)
