"""The live store-port probe against real sockets on 127.0.0.1, and the TUI's check table that uses it."""
from __future__ import annotations

import socket

from doctor.facts import Origin
from doctor.facts.env import EnvVar
from doctor.facts.launch import ConnectError
from doctor.rank import Diagnosis
from doctor.report.model import Report
from doctor.tui.checks import LIVE_CHECKS, next_items, run_store, store_target
from probes.store_port import connect


def closed_port() -> int:
    """A port nothing listens on: bind, read the number, close."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def diagnosis(cause: str, next_checks: list[str]) -> Diagnosis:
    return Diagnosis(cause, "t", 0.6, ["X"], [], "fix", [], next_checks)


def test_connect_to_a_listener_is_open() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        fact = connect("127.0.0.1", server.getsockname()[1], timeout_s=2)
    assert (fact.reachable, fact.outcome) == (True, "open")
    assert fact.origin.mode == "live" and "connected in" in fact.origin.text


def test_connect_to_a_closed_port_is_refused() -> None:
    fact = connect("127.0.0.1", closed_port(), timeout_s=2)
    assert (fact.reachable, fact.outcome) == (False, "refused")


def test_unresolvable_name_and_bad_port_never_raise() -> None:
    assert connect("no-such-host.invalid", 29500, timeout_s=1).outcome == "unresolved"
    assert connect("127.0.0.1", 0).outcome == "error"


def test_store_target_prefers_the_failed_connect_then_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    err = ConnectError(host="10.1.1.1", port=29500, outcome="timeout", transport="store", origin=Origin("a.log", 3))
    env = [EnvVar(name="MASTER_ADDR", value="10.9.9.9"), EnvVar(name="MASTER_PORT", value="1234")]
    assert store_target(Report([], facts=[*env, err])) == ("10.1.1.1", 29500)
    assert store_target(Report([], facts=env)) == ("10.9.9.9", 1234)
    assert store_target(Report([], facts=[])) is None
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "29400")
    assert store_target(Report([], facts=[])) == ("127.0.0.1", 29400)


def test_run_store_without_an_address_explains_itself(monkeypatch) -> None:
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    result = run_store(Report([], facts=[]))
    assert result.facts == [] and "MASTER_ADDR" in result.summary


def test_next_items_mark_what_a_live_check_answers() -> None:
    report = Report([], facts=[])
    items = next_items(diagnosis("port_blocked", ["Is the port reachable from a worker?", "Read rank 0's log"]), report)
    assert [bool(i.check) for i in items] == [True, False]
    offered = next_items(diagnosis("master_addr_wrong", []), report)      # offered for its cause, no sentence needed
    assert len(offered) == 1 and offered[0].check is LIVE_CHECKS[0]
    assert next_items(diagnosis("shm_too_small", ["df -h /dev/shm"]), report)[0].check is None


def test_movement_names_the_old_and_new_place() -> None:
    from doctor.tui.checks import movement
    a, b = diagnosis("port_blocked", []), Diagnosis("nccl_env_misuse", "t", 0.36, ["ENV003"], [], "fix", [])
    lowered = Diagnosis("port_blocked", "t", 0.24, ["NET001"], [], "fix", [], lowered_by=["NET021"])
    assert movement("port_blocked", Report([a, b]), Report([b, lowered])) == "port_blocked: 0.60 #1 → 0.24 #2"
    assert movement("port_blocked", Report([a]), Report([a])) == "port_blocked: 0.60 #1 (unchanged)"
