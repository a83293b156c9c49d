"""NVIDIA DCGM diagnostics as JSON (`dcgmi diag -r N -j`): the tests that failed a GPU, as the table's reading.

DCGM 3.x names the document "DCGM GPU Diagnostic" and a result's GPUs in "gpu_ids"; 4.x names it "DCGM Diagnostic"
and gives each GPU a result of its own ("entity_group": "GPU", "entity_id": 0). The Deployment category (4.x: its one
`software` test) judges the setup, not a GPU: persistence mode off fails a GPU's row there (glimmer-burnin's GB10
capture). A warning that a GPU has uncorrectable memory errors names a broken GPU wherever it stands.

Sample input (real output of DCGM 4.5.2, tab-indented as dcgmi writes it):
    {"DCGM Diagnostic" : {"test_categories" : [{"category" : "Hardware", "tests" : [{"name" : "memory",
      "results" : [{"entity_group" : "GPU", "entity_group_id" : 1, "entity_id" : 0, "status" : "Pass"}], ...
"""
from __future__ import annotations

import json
from typing import Any, Iterator

from doctor.facts.gpu import GpuDiagnostic
from doctor.probing.contract import DocumentProbe, ParseContext
from probes.dcgm_diag import SETUP_TESTS
from doctor.probing.regex import lazy_compile
from doctor.probing.json_values import fragment, json_dicts, json_list

_ROOTS = ("DCGM Diagnostic", "DCGM GPU Diagnostic")
_ERROR_GPU = lazy_compile(r"\bGPU (?P<gpu>\d{1,3}) has uncorrectable memory errors")
_GPU_IDS = lazy_compile(r"^\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*$")


class DcgmDiagJson(DocumentProbe):
    name = "dcgm_diag_json"
    yields = ("gpu.diagnostic",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        start = head.lstrip()[:400]
        return start.startswith("{") and any(f'"{root}"' in start for root in _ROOTS) and '"test_categories"' in head

    def parse(self, text: str, ctx: ParseContext) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            return
        root = next((data[r] for r in _ROOTS if isinstance(data, dict) and isinstance(data.get(r), dict)), None)
        if root is None:
            return
        for category in json_dicts(root.get("test_categories")):
            setup = str(category.get("category", "")) == "Deployment"
            for test in json_dicts(category.get("tests")):
                self._test(test, setup, ctx)

    def _test(self, test: dict[str, Any], setup: bool, ctx: ParseContext) -> None:
        name = str(test.get("name", ""))
        for result in json_dicts(test.get("results")):
            for gpu in _broken_memory(result):
                ctx.emit(GpuDiagnostic, 1, fragment(result), test="Deployment", gpus=gpu)
            if setup or name in SETUP_TESTS or str(result.get("status", "")).lower() != "fail":
                continue
            if gpus := _gpus(result):
                ctx.emit(GpuDiagnostic, 1, fragment(result), test=name, gpus=gpus)


def _gpus(result: dict[str, Any]) -> str:
    """The GPUs a result names: 4.x's entity (a GPU's only), 3.x's "gpu_ids" list; '' when it names none."""
    if "entity_id" in result:
        return str(result["entity_id"]) if str(result.get("entity_group", "GPU")) == "GPU" else ""
    ids = str(result.get("gpu_ids", result.get("gpu_id", "")))
    return ",".join(i.strip() for i in ids.split(",")) if _GPU_IDS.match(ids) else ""


def _broken_memory(result: dict[str, Any]) -> Iterator[str]:
    for warning in json_list(result.get("warnings")) + [result.get("warning")]:
        text = warning.get("warning", "") if isinstance(warning, dict) else warning
        if isinstance(text, str) and (m := _ERROR_GPU.search(text)):
            yield m["gpu"]
