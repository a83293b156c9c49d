"""NCCL's echo of a setting the network plugin made is the plugin's setting too (probes/env_vars.py).

Real text: a healthy one-pod EKS run (gnosia93/training-on-eks, held-out batch KX) where aws-ofi-nccl prints
"NET/OFI Adding NCCL_PROTO=simple to environment" and NCCL later "NCCL_PROTO set by environment to simple".
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.env_vars import EnvVars

LOG = next((Path(__file__).resolve().parents[2] / "fixtures" / "cases"
            / "healthy-gnosia93-trainingoneks-g6e-1pod-4proc-shm-ofi-proto-simple" / "input").iterdir())


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

