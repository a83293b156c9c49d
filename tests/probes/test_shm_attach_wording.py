"""probes/nccl_errors.py telling a failed attach to a peer's /dev/shm segment from a failed create, on real lines."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.nccl_errors import NcclErrors

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
# NCCL 2.23 attaching to the segment another rank of the node should have created (nccl#1589, verbatim)
ATTACH = ("g148:14937:69361 [0] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment "
          "/dev/shm/nccl-glnlGK (size 14156128), error: No such file or directory (2)")


def _calls(text: str) -> list:
    return [f for f in parse_lines(NcclErrors, text, source="nccl.log", node="input") if f.KIND == "sys.call_failed"]


def test_a_failed_attach_is_an_attach_not_an_allocation() -> None:
    [call] = _calls(ATTACH + "\n")
    assert (call.call, call.errno, call.resource) == ("shm_attach", "ENOENT", "/dev/shm")


def test_a_failed_create_stays_an_allocation() -> None:
    text = (CASES / "shm-kserve-3791" / "input").glob("*")
    lines = [ln for p in text for ln in p.read_text(encoding="utf-8").splitlines()
             if "Error while creating shared memory segment" in ln]
    assert lines
    assert {c.call for c in _calls("\n".join(lines) + "\n")} == {"shm_alloc"}
