"""The coordination service of TensorFlow and JAX (XLA's TSL) ending a process because another task died
(probes/tensorflow.py): the peer's death is the cause, this process is its echo (COLL006, collective_desync).

Real text: the two examples of JAX's "Fault Tolerant Distributed JAX" page, task 0 (the coordination service's host)
killed and task 3 killed (fixtures/cases/desync-jax-docs-*). Before this reading both were answered with the crash
symptom's fallback guesses only, collective_desync not among them. The coordinator that a firewall kept every task
from reaching (jax#35905, the same service's RegisterTask RPC at start) is no task that died.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.tensorflow import TensorFlow

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
TERMINATING = ("F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service "
               "detected fatal errors. This most likely indicates that another task died; see the other task logs for "
               "more details.\n")
CRASHED = ("The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, "
           "eviction) to debug further.\n")
POLLED = ("E0926 17:26:32.075402  157988 coordination_service_agent.cc:332] Polled an error from coordination service "
          "(this can be an error from this or another task).\n")


@pytest.mark.parametrize("line", [TERMINATING, CRASHED])
def test_the_service_saying_a_task_died_is_a_lost_peer(line: str) -> None:
    facts = parse_lines(TensorFlow, line)
    assert [(f.KIND, f.get("reason")) for f in facts] == [("collective.peer_lost", "exited")]


def test_an_error_polled_from_the_service_alone_names_no_dead_task() -> None:
    assert parse_lines(TensorFlow, POLLED) == []


@pytest.mark.parametrize("case", ["desync-jax-docs-task3-stopped-heartbeats",
                                  "desync-jax-docs-leader-task0-died-coordination-rpc"])
def test_the_documented_examples_name_the_dead_peer_first(case: str) -> None:
    report = diagnose_files([str(CASES / case / "input")])
    assert report.diagnoses[0].cause == "collective_desync" and "COLL006" in report.diagnoses[0].rules


def test_a_coordinator_nobody_reached_is_not_a_dead_task() -> None:
    report = diagnose_files([str(CASES / "port-blocked-jax-35905-tpu-coordinator-port-8482-firewall" / "input")])
    assert all("COLL006" not in d.rules for d in report.diagnoses)
