"""A collector's ISO-8601 time stamp before each line (GitHub Actions, Buildkite, `kubectl logs --timestamps`, a CI's
"[2026-02-24T20:21:58Z] ") is no part of the text: an exception behind it is still an exception line. The first line is
verbatim from fixtures/cases/ksb-pytorch-175666-torch211-cu130-vllm-l4-free-mem (a vLLM CI run, pytorch#175666),
where the exception was not read at all before."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from doctor.probing.lines import who
from probes.error_lines import ErrorLines

CI_LINE = ("[2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) "
           "on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or "
           "reduce GPU memory used by other processes.")


def errors(text: str) -> list[tuple[str, str]]:
    return [(f.form, f.text[:40]) for f in parse_lines(ErrorLines, text + "\n") if f.KIND == "log.error_line"]


def test_an_exception_behind_a_stamp_and_a_ray_prefix_is_read() -> None:
    assert errors(CI_LINE) == [("exception", "ValueError: Free memory on device cuda:1")]


def test_kubectl_and_actions_stamps_with_fractions_and_offsets() -> None:
    assert who("2026-02-24T20:21:58.1234567Z RuntimeError: x", "").body == "RuntimeError: x"
    assert who("2026-02-24T20:21:58+02:00 Traceback (most recent call last):", "").body.startswith("Traceback")


def test_a_date_that_is_the_text_stays() -> None:
    line = "2023-07-16 19:01:03,149 ERROR tune.py:1107 -- Trials did not complete"   # no 'T': the logger's own field
    assert who(line, "").body == line
