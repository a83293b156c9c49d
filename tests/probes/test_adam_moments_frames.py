"""traceback_frames: torch.optim Adam/AdamW frames and moment-buffer lines are `optimizer_moments` (issue 12).

The positive texts are real tracebacks of the cases named beside them; the negatives are `step` frames that are not
torch.optim's Adam (a scheduler wrapper, accelerate's optimizer wrapper, a trainer's step).
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.traceback_frames import TracebackFrames

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _activities(text: str) -> list[tuple[str, str]]:
    facts = parse_lines(TracebackFrames, text, source="t.log", node="n")
    return [(f.function, f.activity) for f in facts if f.KIND == "trace.frame"]


def test_a_source_line_of_adams_update_is_the_optimizer_moments() -> None:
    text = (CASES / "oom-states-llamafactory-1221" / "input" / "train.log").read_text(encoding="utf-8")
    assert ("adam_state", "optimizer_moments") in _activities(text)


def test_a_windows_adamw_step_frame_is_the_optimizer_moments_and_a_scheduler_wrapper_is_not() -> None:
    text = (CASES / "oom-states-sd-dreambooth-287" / "input" / "train_dreambooth_traceback.txt").read_text(encoding="utf-8")
    found = _activities(text)
    assert ("step", "optimizer_moments") in found
    assert ("adam_state", "optimizer_moments") in found
    assert not any(act == "optimizer_moments" and fn == "wrapper" for fn, act in found)


def test_a_rich_traceback_frame_of_multi_tensor_adamw_is_read() -> None:
    line = "│ C:\\kohya_ss\\venv\\lib\\site-packages\\torch\\optim\\adamw.py:566 in _multi_tensor_adamw               │"
    assert _activities(line) == [("_multi_tensor_adamw", "optimizer_moments")]


def test_other_step_frames_are_not_adams() -> None:
    text = ('  File "/venv/lib/python3.10/site-packages/accelerate/optimizer.py", line 145, in step\n'
            '  File "/venv/lib/python3.10/site-packages/torch/optim/lr_scheduler.py", line 137, in wrapper\n'
            '  File "/venv/lib/python3.10/site-packages/pytorch_lightning/core/module.py", line 1300, in training_step\n')
    assert all(act != "optimizer_moments" for _, act in _activities(text))
