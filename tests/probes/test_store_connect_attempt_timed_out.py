"""torch's c10d client when one connect attempt to the store timed out: "The server socket on [h]:p has timed out,
will retry." (socket.cpp, the ETIMEDOUT branch beside "is not yet listening"). Real text: vllm-metal#625 (held-out
batch LS), a store address on a VPN tunnel interface.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
from probes.launch_errors import LaunchErrors

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "fixtures/cases/addr-vllmmetal-625-vpn-tunnel-ip-server-socket-timeout/input"


def test_vpn_address_attempt_is_a_store_connect_timeout() -> None:
    facts = [f for f in gather_files([str(CASE)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
             if f.KIND == "net.connect_error"]
    assert facts
    err = facts[0]
    assert (err.transport, err.outcome, err.port, err.loopback) == ("store", "timeout", 63617, False)
    assert err.host.endswith("10.4.6.125")


def test_not_yet_listening_stays_a_refusal() -> None:
    line = "[I1207 10:30:36.0 socket.cpp:944] The server socket on [node0]:29500 is not yet listening (errno: 111 - Connection refused), will retry."
    [err] = parse_lines(LaunchErrors, line)
    assert err.outcome == "refused"
