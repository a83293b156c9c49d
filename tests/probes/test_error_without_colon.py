"""Error lines that open with "Error <doing>" and no colon (issue 12).

Real text: Lightning-AI/pytorch-lightning#15545 (fixtures/cases/bug-lightning-15545-hydra-ddp-relaunch-children-fail,
held-out batch IF): under Lightning 1.8 the relaunched DDP ranks re-read the Hydra config and die with
"Error merging 'config.yaml' with schema" while rank 0 waits. No probe read that line, so the input showed nothing
but rank 0's announcement and LTN003 said "the other processes were never started" at 0.99.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from probes.error_lines import classify

REPO = Path(__file__).resolve().parents[2]
HYDRA = REPO / "fixtures" / "cases" / "bug-lightning-15545-hydra-ddp-relaunch-children-fail" / "input"


@pytest.mark.parametrize("line", [
    "Error merging 'config.yaml' with schema\n",                                   # Lightning#15545 (Hydra)
    "Error executing method 'init_device'. This might cause deadlock in distributed execution.\n",   # vLLM's worker
    "Error while creating shared memory segment /dev/shm/nccl-vzIpS6 (size 9637888)\n",             # NCCL 2.1x
])
def test_an_error_opening_a_line(line: str) -> None:
    assert classify(line) == "error"


def test_rays_wrapped_exception_is_an_exception_line() -> None:
    # neuralforecast#934 (held-out batch IK): a Ray Tune trial's store timeout re-raised by Ray
    line = ("ray.exceptions.RayTaskError(DistStoreError): ray::ImplicitFunc.train() (pid=386862, ip=107.99.237.41, "
            "actor_id=d3ee59cd38f38e7df8fcc1aa01000000, repr=_train_tune)\n")
    assert classify(line) == "exception"


def test_a_figure_named_error_is_no_failure() -> None:
    assert classify("Error rate 0.12 on the validation split\n") == ""


def test_the_ranks_that_died_at_start_are_not_ranks_never_started() -> None:
    report = diagnose_files([str(HYDRA)])
    causes = [d.cause for d in report.diagnoses]
    assert "rank_config_error" not in causes[:1]
    assert any("Error merging 'config.yaml' with schema" in e.text for e in report.unexplained_lines)
