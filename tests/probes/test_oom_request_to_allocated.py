"""probes/oom.py: request_to_allocated (requested / allocated), the figure MEM026 reads as "a copy of all that is
allocated". Lines are verbatim: LLaMA-Factory#260 (fixtures/cases/oom-model-llamafactory-260, the model's states)
and CSAILVision/semantic-segmentation-pytorch#151 (fixtures/cases/oom-act-semseg-csail-151, an activation).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.probing.contract import parse_lines
from probes.oom import OomMessages

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _event(case: str, name: str):
    text = (CASES / case / "input" / name).read_text(encoding="utf-8")
    (event,) = [f for f in parse_lines(OomMessages, text) if f.KIND == "oom.event"]
    return event


def test_a_request_the_size_of_everything_allocated() -> None:
    event = _event("oom-model-llamafactory-260", "stderr.log")
    assert event.request_to_allocated == pytest.approx(26.08 / 26.14)


def test_a_large_activation_five_percent_apart_from_what_is_allocated() -> None:
    event = _event("oom-act-semseg-csail-151", "error.txt")   # the PyTorch 1.0 wording: "... free; 11.21 MiB cached)"
    assert event.request_to_allocated == pytest.approx(4.46 / 4.72)
    assert event.request_frac > 0.5 and event.allocated_frac > 0.5


def test_no_allocated_figure_no_ratio() -> None:
    (event,) = parse_lines(OomMessages, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    assert event.request_to_allocated == -1
