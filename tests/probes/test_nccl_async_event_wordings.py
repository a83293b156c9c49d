"""nccl_errors: an HCA's asynchronous event in NCCL 2.2x's wording ("mlx5_32:1 Got async error event: port error") is
the same IB event as the older "Got async event : port error" (issue 12, held-out batch MS: llm-d#191, where the new
wording was read by nothing and IB009 never fired on a port that flapped before the crash)."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.nccl_errors import NcclErrors

REPO = Path(__file__).resolve().parents[2]
FLAP = REPO / "fixtures" / "cases" / "ibportdown-llmd-191-rdma-port-flap-tp-crash" / "input"
NEW = ("ms-pd-llm-d-modelservice-prefill-2.log:[2025-09-17 15:16:23] ms-pd-llm-d-modelservice-prefill-2:311:405 [0] "
       "transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error\n")        # llm-d#191
OLD = "gpu-11:5512:5601 [3] transport/net_ib.cc:1130 NCCL WARN NET/IB : Got async event : port error\n"


@pytest.mark.parametrize("line, hca", [(NEW, "mlx5_32:1"), (OLD, "")])
def test_both_wordings_are_a_port_error_event(line: str, hca: str) -> None:
    (event,) = [f for f in parse_lines(NcclErrors, line) if f.KIND == "nccl.ib_event"]
    assert event.get("event") == "port error" and event.get("port_down") and event.get("hca") == hca


def test_port_active_is_an_event_but_not_a_port_down() -> None:
    line = NEW.replace("port error", "port active")
    (event,) = [f for f in parse_lines(NcclErrors, line) if f.KIND == "nccl.ib_event"]
    assert event.get("event") == "port active" and not event.get("port_down")


def test_the_flapping_port_ranks_ib_port_down_first() -> None:
    report = diagnose_files([str(FLAP)])
    assert report.diagnoses[0].cause == "ib_port_down" and "IB009" in report.diagnoses[0].rules
