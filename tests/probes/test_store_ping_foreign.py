"""A TCPStore client whose ping gets a foreign reply: another program answers on the store's port.

Real text: the lab's recording (fixtures/incidents/store-port-held-by-other-service, torch 2.13, a banner service on
MASTER_PORT) and TensorRT-LLM's CI log (TensorRT-LLM#10374, held-out batch LR).
"""
from __future__ import annotations

from pathlib import Path

from doctor.facts import Fact
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "fixtures/incidents/store-port-held-by-other-service/rank1.log"
TRTLLM = REPO / "fixtures/cases/port-in-use-trtllm-10374-tcpstore-ping-invalid-value/input"


def connect_errors(path: Path) -> list[Fact]:
    facts = gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return [f for f in facts if f.KIND == "net.connect_error"]


def test_lab_ping_retries_are_one_misdirected_connect() -> None:
    errors = connect_errors(LAB)
    misdirected = [f for f in errors if f.outcome == "misdirected"]
    assert len(misdirected) == 1        # the client retries every half second: one fact per address
    assert misdirected[0].transport == "store" and misdirected[0].host == "127.0.0.1"
    assert misdirected[0].port == next(f.port for f in errors if f.outcome == "timeout")   # the final timeout's port
    assert "Ping failed, invalid value returned from server" in misdirected[0].origin.text


def test_trtllm_ci_line_read_with_its_port() -> None:
    [err] = [f for f in connect_errors(TRTLLM) if f.outcome == "misdirected"]
    assert (err.host, err.port, err.transport, err.loopback) == ("127.0.0.1", 30325, "store", True)


def test_other_validate_failures_are_not_misdirected() -> None:
    from doctor.probing.contract import parse_lines
    from probes.launch_errors import LaunchErrors
    line = ("[W1229 12:47:08.489869130 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host "
            "10.0.0.1:29500 - retrying (try=0, timeout=600000ms, delay=385ms): Connection reset by peer")
    assert all(f.outcome != "misdirected" for f in parse_lines(LaunchErrors, line))
