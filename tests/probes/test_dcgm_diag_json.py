"""dcgmi diag -j, DCGM 3.x and 4.x (issue 12, GPU hardware area): the same reading as the table's.

Real documents: a GB10's level-2 runs from glimmer-burnin (DCGM 4.5.2, fixtures/logs) and a healthy 3.x run -r 3
(fixtures/cases/healthy-virtualclient-dcgmi-diag-r3-json-eud-skip)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

from doctor.probing.contract import parse_document
from probes.dcgm_diag_json import DcgmDiagJson

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "fixtures" / "logs"
GATED = LOGS / "dcgmi-diag-4.5.2-json-persistence-off-gb10.json"
ALLOWED = LOGS / "dcgmi-diag-4.5.2-json-plugins-allowed-gb10.json"
V3 = ROOT / "fixtures" / "cases" / "healthy-virtualclient-dcgmi-diag-r3-json-eud-skip" / "input" / "dcgmi_diag_r3.json"


def read(text: str) -> list:
    return parse_document(DcgmDiagJson, text, source="diag.json", node="n1")


def _test(data: dict, name: str) -> dict:
    return next(t for c in data["DCGM Diagnostic"]["test_categories"] for t in c["tests"] if t["name"] == name)


def test_the_documents_are_recognised() -> None:
    for path in (GATED, ALLOWED, V3):
        assert DcgmDiagJson.sniff(path.read_text()[:4096]), path


def test_persistence_mode_off_fails_the_software_test_not_a_gpu() -> None:
    """The GB10's `software` test fails GPU 0 (error_id 29); memory and pcie Skip, then Pass: no GPU is broken."""
    assert read(GATED.read_text()) == []
    assert read(ALLOWED.read_text()) == []


def test_a_healthy_3x_run_names_no_gpu() -> None:
    assert read(V3.read_text()) == []


def test_a_hardware_test_failing_a_gpu_names_it() -> None:
    """The real 4.5.2 document with memory's GPU 0 result failed: a format test of this probe, not a case."""
    data = json.loads(ALLOWED.read_text())
    failed = copy.deepcopy(data)
    _test(failed, "memory")["results"][0]["status"] = "Fail"
    assert [(f.test, f.gpus) for f in read(json.dumps(failed))] == [("memory", "0")]


def test_a_3x_result_names_its_gpu_ids() -> None:
    data = json.loads(V3.read_text())
    for category in data["DCGM GPU Diagnostic"]["test_categories"]:
        for test in category["tests"]:
            if test["name"] == "GPU Memory":
                test["results"][0]["status"] = "Fail"
    assert [(f.test, f.gpus) for f in read(json.dumps(data))] == [("GPU Memory", "0")]


def test_broken_json_is_no_fact() -> None:
    assert read(GATED.read_text()[:500]) == []
