"""`doctor analyze --json` on the incidents of every other launcher, library and benchmark doctor reads.

Per system: each failure family's incident has its cause on top, each healthy run has nothing at or above 0.5,
and a benchmark diagnosis states both figures ("expected X", "measured Y"). The CLI's own entry point runs
in-process (argument parsing, exit code, JSON on stdout) to keep the suite fast on a shared machine; one test
runs it as a subprocess the way a user does.
"""
from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest
import yaml

from doctor.cli import main
from tests.conftest import REPO, run_doctor
from tests.test_incidents import shown

INCIDENTS = REPO / "fixtures" / "incidents"                 # recorded here
ROOTS = (INCIDENTS, REPO / "fixtures" / "format-examples")   # and the examples written by hand in a tool's format
HEALTHY_BELOW = 0.5
SYSTEMS: dict[str, tuple[str, ...]] = {
    "horovod": ("horovod-",),
    "tensorflow": ("tf-",),
    "deepspeed": ("deepspeed-",),
    "lightning": ("lightning-",),
    "accelerate": ("accelerate-",),
    "openmpi": ("mpirun-", "mpi-"),
    "iperf3": ("iperf3-",),
    "perftest": ("perftest-",),
    "nccl-tests": ("nccl-tests-",),
    "nsys": ("nsys-",),
}
BENCHMARKS = ("iperf3", "perftest", "nccl-tests", "nsys")


def cases(prefixes: tuple[str, ...]) -> list[Path]:
    return sorted(p.with_name(p.name.removesuffix(".expected.yaml")) for root in ROOTS
                  for p in root.glob("*.expected.yaml") if p.name.startswith(prefixes))


def doctor(*args: str) -> tuple[int, str, str]:
    """`doctor ARGS` through the CLI's entry point: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def analyze(case: Path, *extra: str) -> tuple[int, dict]:
    code, out, err = doctor("analyze", "--json", *extra, str(case))
    assert code in (0, 1), err
    return code, json.loads(out)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_system_families_and_healthy_run(system: str) -> None:
    found = cases(SYSTEMS[system])
    answers = {c: yaml.safe_load(c.with_name(c.name + ".expected.yaml").read_text()) for c in found}
    assert any(a["cause"] == "healthy" for a in answers.values()), f"{system}: no healthy run"
    assert any(a["cause"] != "healthy" for a in answers.values()), f"{system}: no failure"
    for case in found:
        code, report = analyze(case)
        expected, got = answers[case]["cause"], report["diagnoses"]
        if expected == "healthy":
            assert all(d["confidence"] < HEALTHY_BELOW for d in got), f"{case.name}: {got}"
            continue
        assert code == 1 and got, f"{case.name}: nothing found"
        ranked = [(d["cause"], d["confidence"]) for d in got]
        assert shown(case, ranked, {expected}), f"{case.name}: want {expected}, got {ranked}"
        assert got[0]["evidence"] and got[0]["evidence"][0]["line"] >= 1
        if system in BENCHMARKS and got[0]["rules"][0] != "NCT003":
            said = got[0]["title"] + " " + " ".join(e["note"] for e in got[0]["evidence"])
            assert "expected" in said and ("measured" in said or "reaches" in said), f"{case.name}: {said}"


def test_slow_link_states_both_figures() -> None:
    """The recorded 1 Gbit/s link against 10 Gbit/s, as a user runs it: both figures in the title and the evidence."""
    proc = run_doctor("analyze", "--json", str(INCIDENTS / "iperf3-slow-link-netns"))
    assert proc.returncode == 1, proc.stderr
    top = json.loads(proc.stdout)["diagnoses"][0]
    assert top["cause"] == "slow_network_link"
    assert "expected 10 Gbit/s" in top["title"] and "measured 0." in top["title"]
    assert any("expected 10 Gbit/s" in e["note"] and "measured" in e["note"] for e in top["evidence"])


def test_expectation_from_the_command_line(tmp_path: Path) -> None:
    """The same iperf3 JSON without its expectations file: judged against the floor of a training interconnect
    (LINK003: below a healthy 10 GbE link), until --expect gives the link's own figure, which then rules."""
    case = tmp_path / "iperf3"
    shutil.copytree(INCIDENTS / "iperf3-json-slow-link-netns", case)
    (case / "expectations.yaml").unlink()
    code, report = analyze(case)
    assert code == 1 and report["diagnoses"][0]["rules"] == ["LINK003"]
    assert "slower than a healthy 10 GbE link" in report["diagnoses"][0]["title"]
    code, report = analyze(case, "--expect", "link_gbps=10")
    assert code == 1 and report["diagnoses"][0]["cause"] == "slow_network_link"
    assert "--expect link_gbps=10" in report["diagnoses"][0]["evidence"][0]["note"]
    code, report = analyze(case, "--expect", "link_gbps=800Mbit/s")
    assert code == 0 and report["healthy"], "0.89 Gbit/s meets an expectation of 800 Mbit/s"
    assert all(d["if_failed"] and d["confidence"] < 0.5 for d in report["diagnoses"]), "only guesses 'if it failed'"


@pytest.mark.parametrize("bad", ["link_gbps", "nope=3", "link_gbps=fast", "link_gbps=-1", "busbw_gbs=10 parsecs"])
def test_bad_expectation_is_a_usage_error(bad: str) -> None:
    code, out, err = doctor("analyze", "--expect", bad, str(INCIDENTS / "iperf3-healthy-netns"))
    assert code == 2 and not out
    assert err.startswith("doctor: --expect") and err.count("\n") == 1, err
    assert "Traceback" not in err
