"""A diagnosis title names what the input gave and leaves out what it did not: no "?" for a missing field.

Each input is a real case's upload (fixtures/cases); the expected titles were read and checked by hand.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.facts import Origin
from doctor.facts.launch import ConnectError
from doctor.templates import render

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"


def _title(case: str, rule: str) -> str:
    report = diagnose_files([str(CASES / case / "input")])
    return next(d.title for d in report.diagnoses if rule in d.rules)


@pytest.mark.parametrize("case, rule, title", [
    # "RuntimeError: Address already in use (os error 98)": no port in the line
    ("port-in-use-torchft-30", "NET005", "port is already taken on the master (EADDRINUSE)"),
    # "The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use)"
    ("port-in-use-llamafactory-162-29500", "NET005", "port 29500 is already taken on the master (EADDRINUSE)"),
    # NCCL's "Call to connect returned Connection refused, retrying" names no peer
    ("rank-config-fairseq-1096-world-size-rank", "NET009", "NCCL could not connect to a peer (refused)"),
    ("wrong-ifname-nccl-210", "NET010", "the configured socket interface does not exist or has no address here"),
    ("shm-sglang-docs-5", "SHM001", "NCCL could not create a shared-memory segment in /dev/shm"),
    ("route-conflict-nccl-1580", "ROUTE100",
     "interfaces eno1,enp37s0f0 are in one subnet (192.168.0.0/20): the kernel sends that whole subnet out of one of them"),
])
def test_title_leaves_out_what_the_input_did_not_give(case: str, rule: str, title: str) -> None:
    assert _title(case, rule) == title


def test_optional_part_kept_when_its_fields_are_known() -> None:
    err = ConnectError(origin=Origin("a.log", 3, ""), transport="store", host="10.0.0.1", port=29500)
    text = "store[[ at {err.host}]][[, port {err.port}]][[ on {err.node}]]"
    assert render(text, {"err": err}) == "store at 10.0.0.1, port 29500"


def test_optional_part_dropped_for_an_alias_not_bound() -> None:
    assert render("a peer[[ ({p.peer})]] left", {}) == "a peer left"
