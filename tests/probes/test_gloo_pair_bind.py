"""Gloo's own bind failure is an ephemeral-port bind (issue 12; NET005's port-0 exception).

Gloo's tcp transport binds each pair's listening socket (newer Gloo: the device's listener) to the interface address
with port 0, so "bind: Address already in use" there means the kernel found no free local port, not that another job
holds the store's port (gloo/transport/tcp/pair.cc Pair::listen; pytorch/gloo PR 353). The store's own bind failure
keeps its port. Texts verbatim from the threads named beside them.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.launch_errors import LaunchErrors

# ray-project/ray#35907 (Ray Train, 422 CPUs): Gloo's pair bind
GLOO_PAIR_BIND = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:176] bind: Address already in use\n"
# pytorch/pytorch#126510: the store's own bind (torchrun's c10d rendezvous port)
STORE_BIND = "[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29400 (errno: 98 - Address already in use).\n"


def binds(text: str) -> list[tuple[str, int]]:
    return [(f.host, f.port) for f in parse_lines(LaunchErrors, text) if f.KIND == "net.bind_error"]


def test_gloos_pair_bind_is_an_ephemeral_port_bind() -> None:
    assert binds(GLOO_PAIR_BIND) == [("", 0)]


def test_the_stores_bind_keeps_its_port() -> None:
    assert binds(STORE_BIND) == [("::", 29400)]
