"""The node test, the Slurm hostlist, the decision table: figures worked by hand."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from doctor.fleet.actions import CAUSE_CLASS, decide
from doctor.fleet.hostlist import compress, expand
from doctor.fleet.suspects import holm, judge, poisson_sf, stratum

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


def test_poisson_tail_by_hand() -> None:
    mu = 0.08                                    # 4 jobs at a 2% rate
    assert poisson_sf(3, mu) == pytest.approx(1 - math.exp(-mu) * (1 + mu + mu**2 / 2), rel=1e-6)
    assert poisson_sf(0, 5.0) == 1.0
    assert poisson_sf(1, 2.0) == pytest.approx(1 - math.exp(-2.0))
    assert poisson_sf(3, 0.0) == 0.0


def test_job_size_strata() -> None:
    assert [stratum(n) for n in (1, 2, 3, 4, 5, 8, 9, 16, 17)] == [0, 1, 2, 2, 3, 3, 4, 4, 5]


def test_holm_steps_down() -> None:
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})


def test_three_in_four_is_suspect_three_in_three_hundred_is_not() -> None:
    counts = {"flaky": (4, 3, 0.08), "busy": (300, 3, 6.0), **{f"n{i:03d}": (100, 2, 2.0) for i in range(100)}}
    verdicts = {v.node: v for v in judge(counts)}
    assert verdicts["flaky"].suspect and verdicts["flaky"].adjusted < 0.05
    assert not verdicts["busy"].suspect and verdicts["busy"].p_value > 0.5
    assert not any(v.suspect for name, v in verdicts.items() if name != "flaky")


def test_a_busy_node_in_small_jobs_is_judged_by_its_own_jobs() -> None:
    """Failures land on 1 of 2 nodes in 2-node jobs, 1 of 16 in 16-node jobs: a busy node in many small jobs
    fails more often than the fleet-wide rate, exactly as its jobs predict, and is not suspect."""
    from doctor.fleet.report import build
    from doctor.fleet.store import StoredJob

    def job(i: int, nodes: list[str], culprit: str | None) -> StoredJob:
        diagnoses = [{"cause": "straggler", "rules": ["CLU012"], "nodes": [culprit], "evidence": []}] if culprit else []
        return StoredJob(str(i), str(i), "", None, float(i), float(i), "t", nodes, diagnoses)

    jobs = []
    for i in range(400):                         # busy: in every 2-node job, culprit in a quarter of them
        jobs.append(job(i, ["busy", f"s{i % 40:02d}"], ("busy" if i % 8 == 0 else f"s{i % 40:02d}") if i % 4 == 0 else None))
    for i in range(400, 600):                    # 16-node jobs of the others, one culprit in a quarter of them
        nodes = [f"b{(i + k) % 64:02d}" for k in range(16)]
        jobs.append(job(i, nodes, nodes[i % 16] if i % 4 == 0 else None))
    report = build(jobs)
    busy = next(v for v in report.nodes if v.node == "busy")
    assert busy.failures / busy.jobs > 2 * report.fleet_rate   # far above the fleet-wide rate ...
    assert not busy.suspect and busy.p_value > 0.3              # ... and just what its jobs predict


def test_a_guess_from_the_symptom_blames_no_node() -> None:
    """A desync job's diagnoses end with the hang's usual causes as guesses (p2p_broken at 0.01, no rule, its
    evidence the symptom's line on some node): that names no node. Before, every such guess counted as a failure of
    the node that printed the line, which raised the fleet rate until a real bad node was no longer suspect."""
    from doctor.fleet.report import build
    from doctor.fleet.store import StoredJob

    guess = {"cause": "p2p_broken", "rules": [], "confidence": 0.01, "nodes": ["n1"], "evidence": []}
    ruled = {"cause": "straggler", "rules": ["CLU012"], "confidence": 0.9, "nodes": ["n2"], "evidence": []}
    jobs = [StoredJob("1", "1", "", None, 1.0, 1.0, "t", ["n1", "n2"], [ruled, guess])]
    report = build(jobs)
    assert set(report.failures) == {"n2"}


@pytest.mark.parametrize("path", [p for p in TAXONOMIES if p.exists()], ids=lambda p: p.name)
def test_every_taxonomy_cause_has_a_decision_class(path: Path) -> None:
    causes = set(yaml.safe_load(path.read_text())["causes"])
    assert causes - set(CAUSE_CLASS) == set()


def test_decisions() -> None:
    straggler = [{"cause": "straggler", "rules": ["CLU012"], "nodes": ["gpu07"]}]
    assert decide(straggler, ["gpu07", "gpu08"], set()).exclude == ("gpu07",)
    oom = decide([{"cause": "oom_model_states", "rules": ["MEM020"], "nodes": ["gpu07"]}], ["gpu07"], {"gpu07"})
    assert oom.action == "stop" and "program" in oom.reason
    assert decide([], ["gpu07"], set()).action == "unknown"
    assert decide([], ["gpu07", "gpu08"], {"gpu08"}).exclude == ("gpu08",)
    assert decide([{"cause": "port_in_use", "rules": ["NET005"], "nodes": []}], ["a"], set()).action == "restart"
    assert decide([{"cause": "gpu_hw_fault", "rules": ["GPU002"], "nodes": []}], ["a"], set()).action == "unknown"
    assert decide([{"cause": "not_a_cause", "rules": ["X"], "nodes": []}], ["a"], set()).action == "unknown"


def test_a_guess_decides_nothing() -> None:
    """The crash symptom's guess known_software_bug (no rule) would have stopped the job as a program error, and a
    node-class guess excluded the node that printed the symptom's line: both are 'unknown' now."""
    ksb = {"cause": "known_software_bug", "rules": [], "nodes": []}
    assert decide([ksb], ["a"], set()).action == "unknown"
    p2p = {"cause": "p2p_broken", "rules": [], "nodes": ["a"]}
    decision = decide([p2p], ["a", "b"], set())
    assert decision.action == "unknown" and "only guesses" in decision.reason
    assert decide([p2p], ["a", "b"], {"b"}).exclude == ("b",)      # a fleet-wide suspect is still excluded
    ruled = {"cause": "straggler", "rules": ["CLU012"], "nodes": ["b"]}
    assert decide([ksb, ruled], ["a", "b"], set()).exclude == ("b",)   # the first diagnosis a rule supports
