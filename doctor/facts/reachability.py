"""Facts measured now, on this node: can it open a TCP connection to an address a job needs?"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class Reachability(Fact):
    """A live TCP connect from `node` to host:port. outcome: open | refused | timeout | unreachable | unresolved | error."""

    KIND = "net.reachability"
    host: str = ""
    port: int = -1
    reachable: bool = False
    outcome: str = "error"
    seconds: float = -1            # how long the connect took (or waited before giving up)
    purpose: str = "store"         # store (MASTER_ADDR:MASTER_PORT / rendezvous) | peer
