"""NCCL's echo of a setting the network plugin made is the plugin's setting too (probes/env_vars.py).

Real text: a healthy one-pod EKS run (gnosia93/training-on-eks, held-out batch KX) where aws-ofi-nccl prints
"NET/OFI Adding NCCL_PROTO=simple to environment" and NCCL later "NCCL_PROTO set by environment to simple"; and
aws-ofi-nccl 1.13's wording of the same, "NET/OFI Setting NCCL_PROTO to \"simple\"" (AWS's BioNeMo guidance log on EKS p5,
held-out batch OC).
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.env_vars import EnvVars

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
LOG = next((CASES / "healthy-gnosia93-trainingoneks-g6e-1pod-4proc-shm-ofi-proto-simple" / "input").iterdir())
LOG_1_13 = CASES / "healthy-aws-guidance-bionemo-esm2-eks-p5-nccl225-efa-max-steps" / "input" / "train.log"


def test_every_nccl_proto_of_the_run_is_the_plugins() -> None:
    facts = [f for f in parse_lines(EnvVars, LOG.read_text(encoding="utf-8"), source=LOG.name, node="")
             if f.name == "NCCL_PROTO"]
    assert facts and {f.source for f in facts} == {"plugin"}


def test_the_echo_after_the_plugins_line_is_the_plugins() -> None:
    lines = LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    plugin = next(x for x in lines if "NET/OFI Adding NCCL_PROTO=simple" in x)
    echo = next(x for x in lines if "NCCL_PROTO set by environment to simple" in x)
    assert [f.source for f in parse_lines(EnvVars, echo, source="x", node="")] == ["nccl_log"]
    assert {f.source for f in parse_lines(EnvVars, plugin + echo, source="x", node="")} == {"plugin"}



def test_the_1_13_wording_and_its_echo_are_the_plugins() -> None:
    facts = [f for f in parse_lines(EnvVars, LOG_1_13.read_text(encoding="utf-8"), source=LOG_1_13.name, node="")
             if f.name == "NCCL_PROTO"]
    assert facts and {(f.source, f.value) for f in facts} == {("plugin", "simple")}


def test_a_plugin_line_that_sets_no_variable_is_not_read() -> None:
    line = "host:53:323 [0] NCCL INFO NET/OFI Setting provider_filter to efa\n"
    assert parse_lines(EnvVars, line, source="x", node="") == []
