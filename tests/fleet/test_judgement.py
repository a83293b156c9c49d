"""The node test, the Slurm hostlist, the decision table: figures worked by hand."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from doctor.fleet.actions import CAUSE_CLASS, decide
from doctor.fleet.hostlist import compress, expand
from doctor.fleet.suspects import binomial_sf, holm, judge

REPO = Path(__file__).resolve().parents[2]
TAXONOMIES = [REPO / "rules" / "causes.yaml", REPO.parent.parent / "shared" / "taxonomy.yaml"]


def test_hostlist_round_trip() -> None:
    names = ["node01", "node02", "node03", "node04", "node07", "gpu-a1", "login", "node9"]
    assert compress(names) == "gpu-a1,login,node9,node[01-04,07]"
    assert expand("node[01-04,07],gpu-a1,x[8-10]") == ["node01", "node02", "node03", "node04", "node07", "gpu-a1",
                                                        "x8", "x9", "x10"]
    assert compress(expand("hpc-r02n[04,13],hpc-r03n14")) == "hpc-r02n[04,13],hpc-r03n14"
    assert expand("gpu[1-x]") == ["gpu[1-x]"]                  # malformed: kept as it is, never an exception
    assert compress([]) == ""


def test_binomial_tail_by_hand() -> None:
    # P(X >= 3 | n=4, p=0.02) = 4 * 0.02^3 * 0.98 + 0.02^4
    assert binomial_sf(3, 4, 0.02) == pytest.approx(4 * 0.02**3 * 0.98 + 0.02**4, rel=1e-9)
    assert binomial_sf(0, 10, 0.5) == 1.0
    assert binomial_sf(1, 10, 0.5) == pytest.approx(1 - 0.5**10)


def test_holm_steps_down() -> None:
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})


def test_three_in_four_is_suspect_three_in_three_hundred_is_not() -> None:
    counts = {"flaky": (4, 3), "busy": (300, 3), **{f"n{i:03d}": (100, 2) for i in range(100)}}
    verdicts = {v.node: v for v in judge(counts)}
    assert verdicts["flaky"].suspect and verdicts["flaky"].adjusted < 0.05
    assert not verdicts["busy"].suspect and verdicts["busy"].p_value > 0.5
    assert not any(v.suspect for name, v in verdicts.items() if name != "flaky")


@pytest.mark.parametrize("path", [p for p in TAXONOMIES if p.exists()], ids=lambda p: p.name)
def test_every_taxonomy_cause_has_a_decision_class(path: Path) -> None:
    causes = set(yaml.safe_load(path.read_text())["causes"])
    assert causes - set(CAUSE_CLASS) == set()


def test_decisions() -> None:
    straggler = [{"cause": "straggler", "nodes": ["gpu07"]}]
    assert decide(straggler, ["gpu07", "gpu08"], set()).exclude == ("gpu07",)
    oom = decide([{"cause": "oom_model_states", "nodes": ["gpu07"]}], ["gpu07"], {"gpu07"})
    assert oom.action == "stop" and "program" in oom.reason
    assert decide([], ["gpu07"], set()).action == "unknown"
    assert decide([], ["gpu07", "gpu08"], {"gpu08"}).exclude == ("gpu08",)
    assert decide([{"cause": "port_in_use", "nodes": []}], ["a"], set()).action == "restart"
    assert decide([{"cause": "gpu_hw_fault", "nodes": []}], ["a"], set()).action == "unknown"
    assert decide([{"cause": "not_a_cause", "nodes": []}], ["a"], set()).action == "unknown"
