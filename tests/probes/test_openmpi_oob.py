"""openmpi: the daemons' out-of-band channel failing, in the users-list threads' own (mail-wrapped) lines."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.openmpi import OpenMpi

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _connects(case: str) -> list[tuple[str, int, str, str]]:
    facts = []
    for path in sorted((CASES / case / "input").iterdir()):
        facts += parse_lines(OpenMpi, path.read_text(encoding="utf-8"), source=path.name, node="input")
    return [(f.host, f.port, f.outcome, f.node) for f in facts if f.KIND == "net.connect_error"]


def test_a_dropped_call_back_is_a_connection_that_reached_the_wrong_process() -> None:
    # users list 2015/09/27669: "[r323i5n11:13063] [[62995,0],7] tcp_peer_send_blocking: send() to socket 9" and
    # "failed: Broken pipe (32)" on the next line, from six daemons
    got = _connects("wrong-ifname-ompi-users-2015-27669-pleiades-oob-ethernet-not-ib0-broken-pipe")
    assert {(host, outcome) for host, _, outcome, _ in got} == {("", "misdirected")}
    assert "r323i5n11" in {node for *_, node in got}


def test_an_oob_connect_that_failed_on_every_address_is_unreachable() -> None:
    # users list 2007/11/4547, one line with its address, and 2007/12/4593, the address wrapped to the next line
    assert ("192.168.1.14", 38852, "unreachable", "max15") in _connects("wrong-ifname-ompi-users-2007-4547-oob-eth0-first-econnaborted")
    assert [outcome for _, _, outcome, _ in _connects("wrong-ifname-ompi-users-2007-4593-mpmd-mca-first-app-context-only-oob-103")] == ["unreachable"]


def test_readv_after_a_peer_died_is_not_read() -> None:
    # users list 2006/08/1805: "mca_oob_tcp_msg_recv: readv failed" follows ranks that aborted (held-out batch NO: in
    # every resolved thread it came after a process or node had died), so it is no network sign
    assert _connects("known-bug-ompi-users-2006-1805-intel-9-1-cxx-comm-world-invalid-oob-readv-104") == []
