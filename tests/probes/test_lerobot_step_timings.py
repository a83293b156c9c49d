"""LeRobot prints each step's update time and its wait for data apart ("updt_s:0.302 data_s:13.330"). The first step
of a job is left out of the loader's figures as start-up, but an excerpt that starts past the first step ("step:9")
has no start-up step in it: its first wait counts. Lines are verbatim from
fixtures/cases/dataloader-lerobot-1488-smolvla-video-decode-data-s (lerobot#1488), read as healthy before."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.train_log import TrainLog

CASE = Path(__file__).resolve().parents[2] / "fixtures/cases/dataloader-lerobot-1488-smolvla-video-decode-data-s/input"


def steps(text: str) -> list[tuple[int, float, float]]:
    return [(f.steps, round(f.data_max_s, 3), round(f.compute_s, 3))
            for f in parse_lines(TrainLog, text) if f.KIND == "train.steps"]


def test_the_excerpt_from_step_9_keeps_its_first_wait() -> None:
    text = "".join(p.read_text() for p in sorted(CASE.iterdir()))
    assert steps(text) == [(9, 13.33, 0.296)]


def test_a_log_from_its_first_step_leaves_that_step_out() -> None:
    lines = [f"INFO ts/train.py:232 step:{i} smpl:{64 * i} loss:1.0 updt_s:0.300 data_s:{w}\n"
             for i, w in ((1, "25.000"), (2, "0.001"), (3, "0.002"))]
    assert steps("".join(lines)) == [(3, 0.002, 0.3)]
