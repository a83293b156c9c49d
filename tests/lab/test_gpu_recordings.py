"""The GPU recordings' answers (lab/gpu_fixtures.py) name recordings lab/gpu_record.py makes, and the cases made from
them are in fixtures/cases with those answers (the recordings need a GPU, so CI cannot re-make them)."""
from __future__ import annotations

import yaml

from lab.gpu_fixtures import ANSWERS, CASES
from lab.gpu_record import RECORDINGS


def test_every_answer_names_a_recording() -> None:
    names = {r.name for r in RECORDINGS}
    assert {a.recording for a in ANSWERS} <= names


def test_every_answer_is_a_case_with_that_answer() -> None:
    for a in ANSWERS:
        case = yaml.safe_load((CASES / a.case / "case.yaml").read_text())
        assert (case["cause"], case["symptom"], case["origin"]) == (a.cause, a.symptom, "lab"), a.case
        inputs = sorted(p.name for p in (CASES / a.case / "input").iterdir())
        assert len(inputs) == len(a.files), (a.case, inputs)
