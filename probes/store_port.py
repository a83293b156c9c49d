"""Live: can this node open a TCP connection to the rendezvous store (MASTER_ADDR:MASTER_PORT)?

A real connect with a short timeout, nothing sent. The outcome separates the cases the rules need:
open (something listens), refused (the host answered, nothing listens), timeout (packets dropped:
firewall, security group, wrong route), unreachable (no route), unresolved (the name does not resolve).
"""
from __future__ import annotations

import errno
import socket
import time

from doctor.facts import Origin
from doctor.facts.reachability import Reachability

DEFAULT_TIMEOUT_S = 2.0
_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EHOSTDOWN}


def connect(host: str, port: int, timeout_s: float = DEFAULT_TIMEOUT_S, purpose: str = "store") -> Reachability:
    """Open and close one TCP connection to host:port; never raises, never waits longer than timeout_s (+ DNS)."""
    started = time.monotonic()
    outcome = _attempt(host, port, timeout_s)
    seconds = time.monotonic() - started
    node = socket.gethostname()
    text = _describe(host, port, outcome, seconds, node)
    return Reachability(node=node, host=host, port=port, reachable=outcome == "open", outcome=outcome,
                        seconds=round(seconds, 4), purpose=purpose,
                        origin=Origin(source=f"tcp connect {host}:{port}", text=text, probe="store_port", mode="live"))


def _attempt(host: str, port: int, timeout_s: float) -> str:
    if not 0 < port < 65536:
        return "error"
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return "open"
    except socket.gaierror:
        return "unresolved"
    except ConnectionRefusedError:
        return "refused"
    except (socket.timeout, TimeoutError):
        return "timeout"
    except OSError as err:
        return "unreachable" if err.errno in _UNREACHABLE else "error"


def _describe(host: str, port: int, outcome: str, seconds: float, node: str) -> str:
    took = f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.1f} s"
    return {
        "open": f"{node} -> {host}:{port}: connected in {took}",
        "refused": f"{node} -> {host}:{port}: connection refused after {took} (the host answers, nothing listens)",
        "timeout": f"{node} -> {host}:{port}: no answer within {took} (packets dropped or no route)",
        "unreachable": f"{node} -> {host}:{port}: network unreachable",
        "unresolved": f"{node} -> {host}: the name does not resolve",
    }.get(outcome, f"{node} -> {host}:{port}: connect failed")
