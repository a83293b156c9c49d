"""openib_btl: Open MPI's openib BTL events and failed work completions, on the users-list threads' own output."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.probing.contract import parse_lines
from doctor.probing.offline import gather_files
from probes.openib_btl import OpenibBtl

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
PORT_DOWN = CASES / "ib-port-down-ompi-users-2009-10700-ibv-event-port-err-retry-exceeded-node" / "input"
SRIOV_VFS = CASES / "ib-hca-mismatch-ompi-users-2015-27881-sriov-vfs-retry-exceeded-if-include" / "input"


def _facts(path: Path, kind: str) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    return [f for f in facts if f.KIND == kind]


def test_the_help_texts_port_error_event_is_a_port_down() -> None:
    events = _facts(PORT_DOWN, "nccl.ib_event")
    assert [(e.event, e.port_down, e.origin.line) for e in events] == [("IBV_EVENT_PORT_ERR", True, 7)]


def test_a_wrapped_handle_wc_line_still_gives_its_status() -> None:
    """1.3's handle_wc line wraps after 'to:'; the status sits on the line that starts 'error polling LP CQ'."""
    calls = [c for c in _facts(PORT_DOWN, "sys.call_failed") if c.call == "ibv_poll_cq"]
    assert {(c.errno, c.roce) for c in calls} == {("IBV_WC_12", False)}
    assert calls[0].origin.text.startswith("error polling LP CQ with status RETRY EXCEEDED ERROR status number 12")


def test_retry_exceeded_on_one_line_is_the_retries_sign() -> None:
    calls = [c for c in _facts(SRIOV_VFS, "sys.call_failed") if c.call == "ibv_poll_cq"]
    assert sorted({c.errno for c in calls}) == ["IBV_WC_12"]


def test_other_events_and_other_status_lines_are_not_port_downs() -> None:
    text = ("  Error number:      17 (IBV_EVENT_PORT_ACTIVE)\n"
            "  Error number:      3 (IBV_EVENT_QP_ACCESS_ERR)\n"
            "exited with status number 12\n")
    facts = parse_lines(OpenibBtl, text, source="t.log", node="n")
    assert [(f.event, f.port_down) for f in facts] == [("IBV_EVENT_PORT_ACTIVE", False), ("IBV_EVENT_QP_ACCESS_ERR", False)]


def test_a_protection_error_of_the_btl_is_left_to_the_error_lines() -> None:
    """Open MPI 1.2's 'LOCAL PROTOCOL ERROR status number 4' and 1.5's 'LOCAL LENGTH ERROR' (bugs and
    settings in their threads) are not read: a protection error is the GPU path's IB140 in NCCL's words."""
    lines = ("polling LP CQ with status LOCAL PROTOCOL ERROR status number 4 for\n"      # devel 2007/12/2732, wrapped
             "[[52363,1],1][../../../../../../ompi/mca/btl/openib/btl_openib_component.c:2951:handle_wc] from grsacc20 "
             "to: grsacc19 error polling LP CQ with status LOCAL LENGTH ERROR status number 1 for wr_id 18729360 opcode "
             "128  vendor error 105 qp_idx 3\n")                                            # devel 2011/06/9298
    assert parse_lines(OpenibBtl, lines, source="t.log", node="n") == []
