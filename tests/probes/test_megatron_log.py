"""Megatron iteration lines as real logs print them (issue 12, held-out batch AI): a step time that rose mid-run.

Texts: fixtures/probes/megatron_log (BigScience tr11-176B chronicle: the 5% drop of fixtures/cases/straggler-bigscience-
tr11-176b, wrapped as the chronicle shows it, and a steady stretch of the same run) and the tr1-13B line of
fixtures/cases/hw-bigscience-tr1-13b-ecc (milliseconds, one line).
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.megatron_log import MegatronLog

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "probes" / "megatron_log"
TR1_13B = ("iteration    43680/  311541 | consumed samples:     25709904 | elapsed time per iteration (ms): 25593.4 | "
           "learning rate: 9.135E-05 | global batch size:  1024 | lm loss: 2.635663E+00 | loss scale: 131072.0 | grad norm: "
           "17224.723 | num zeros: 0.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n")


def read(text: str) -> list:
    return parse_lines(MegatronLog, text, source="main_log.txt", node="n1")


def test_a_wrapped_log_keeps_its_batch_size_and_shows_the_rise() -> None:
    [slow] = read((FIXTURES / "bloom-176b-slow-gpu-wrapped.txt").read_text())
    assert (slow.rank, slow.batch, slow.iteration, slow.ratio) == (7, 2048, 42783, 1.052)


def test_a_steady_stretch_through_a_loss_spike_is_quiet() -> None:
    assert read((FIXTURES / "bloom-176b-steady-loss-spike.txt").read_text()) == []


def test_milliseconds_and_one_line_are_not_a_trend() -> None:
    assert read(TR1_13B) == []


def test_a_rise_that_comes_with_a_bigger_batch_is_not_a_slowdown() -> None:
    """An edited copy of the steady stretch (not real output): the last lines at twice the batch and twice the time,
    as a batch-size ramp-up prints them - only the stretch at the final batch size is compared."""
    lines = (FIXTURES / "bloom-176b-steady-loss-spike.txt").read_text().splitlines()
    grown = [line.replace("global batch size:  2048", "global batch size:  4096").replace("(s): 106.", "(s): 211.")
             if i >= 6 else line for i, line in enumerate(lines)]
    assert read("\n".join(grown) + "\n") == []
