"""Open MPI's TCP BTL in its pre-4.1 one-line wording and at btl_base_verbose (issue 12, held-out batch AZ).

Each text is verbatim output from the thread named beside it; each test asserts the fact the probe reads, or that a
near-miss wording (a connect attempt, not a failure) gives none.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.openmpi import OpenMpi

ENDPOINT_REFUSED = ("[u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] "
                    "connect() to 172.17.0.1 failed: Connection refused (111)\n")      # horovod#310
ENDPOINT_NO_ROUTE = ("[train04][[9281,1],1][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] "
                     "connect() to 192.168.118.0 failed: No route to host (113)\n")   # horovod#195 (the line as posted)
MATCH_INCOMING = """\
[mydocker01:06805] btl: tcp: attempting to connect() to [[27443,1],1] address 2.2.2.77 on port 1024
[mydocker01:06805] btl: tcp: Match incoming connection from [[27443,1],1] 44.128.0.4 with locally known IP 2.2.2.77 failed (iface 0/4)!
"""                                   # horovod#209
ATTEMPT_ONLY = "[node1:40348] btl: tcp: attempting to connect() to [[10343,1],0] address 192.168.122.1 on port 1040\n"  # ompi#6377


def connects(text: str):
    return [f for f in parse_lines(OpenMpi, text) if f.KIND == "net.connect_error"]


def test_one_line_endpoint_connect_failure_names_peer_address_and_node() -> None:
    (err,) = connects(ENDPOINT_REFUSED)
    assert (err.host, err.port, err.outcome, err.transport, err.node) == ("172.17.0.1", -1, "refused", "mpi", "u10-154-66-206")


def test_no_route_to_host_is_unreachable() -> None:
    (err,) = connects(ENDPOINT_NO_ROUTE)
    assert (err.host, err.outcome, err.node) == ("192.168.118.0", "unreachable", "train04")


def test_incoming_connection_from_an_unknown_address_is_misdirected() -> None:
    (err,) = connects(MATCH_INCOMING)                 # the 'attempting to connect()' line above it is no failure
    assert (err.host, err.outcome, err.node, err.origin.line) == ("44.128.0.4", "misdirected", "mydocker01", 2)


def test_a_connect_attempt_is_no_error() -> None:
    assert not connects(ATTEMPT_ONLY)
