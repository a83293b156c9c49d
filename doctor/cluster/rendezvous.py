"""Joining the job through torch's TCPStore, with bounded waits, and naming what went wrong when it fails.

Every rank connects to the store (rank 0 hosts it, unless torchrun's agent already does), writes
`join/<rank>` with its node and address, and waits for rank 0's verdict: the node layout, or the ranks
that never joined. A rank that cannot reach the store at all gets torch's own exception, whose text
the line probes read like any log line, plus a TCP connect of its own to the store's address.
"""
from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Iterator

from doctor.cluster.launch import JobSpec
from doctor.facts import Fact
from doctor.facts.cluster import PairReach, RendezvousResult

POLL_S = 0.05
_STDERR_FD = [2]          # where messages go while torch's own stderr is captured


@dataclass
class Layout:
    """Rank 0's verdict: the nodes in rank order, their ranks and the address each advertised."""

    nodes: list[str] = field(default_factory=list)
    ranks: dict[str, list[int]] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)
    missing: list[int] = field(default_factory=list)

    def leader(self, node: str) -> int:
        return self.ranks[node][0]

    def node_of(self, rank: int) -> str:
        return next(node for node, ranks in self.ranks.items() if rank in ranks)

    def to_json(self) -> str:
        return json.dumps({"nodes": self.nodes, "ranks": self.ranks, "addresses": self.addresses, "missing": self.missing})

    @classmethod
    def from_json(cls, text: str) -> "Layout":
        d = json.loads(text)
        return cls(list(d["nodes"]), {k: list(v) for k, v in d["ranks"].items()}, dict(d["addresses"]), list(d["missing"]))


class RendezvousFailed(Exception):
    """Joining failed; .facts say why (from torch's message and our own connect)."""

    def __init__(self, message: str, facts: list[Fact]) -> None:
        super().__init__(message)
        self.facts = facts


def local_address(host: str, port: int) -> str:
    """The address this node uses towards host (no packet is sent: a UDP connect only picks the route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, port))
            return str(s.getsockname()[0])
    except OSError:
        return ""


def stderr_fd() -> int:
    return _STDERR_FD[0]


@contextmanager
def torch_log(into: list[str]) -> Iterator[None]:
    """Capture what torch's C++ side writes to stderr (fd 2) meanwhile: on failure those are the evidence lines."""
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        _STDERR_FD[0] = saved
        try:
            yield
        finally:
            os.dup2(saved, 2)
            _STDERR_FD[0] = 2
            os.close(saved)
            tmp.seek(0)
            into.append(tmp.read(2**20).decode("utf-8", "replace"))


def connect_store(spec: JobSpec, timeout_s: float) -> Any:
    """The job's store (a PrefixStore for this run), or RendezvousFailed with the facts of why not."""
    import torch.distributed as dist
    started = time.monotonic()
    log: list[str] = []
    try:
        with torch_log(log):
            store = dist.TCPStore(spec.master_addr, spec.master_port, spec.world_size,
                                  is_master=spec.rank == 0 and not spec.agent_store,
                                  timeout=timedelta(seconds=timeout_s), wait_for_workers=False)
    except Exception as exc:  # noqa: BLE001 - torch raises several classes (DistNetworkError, RuntimeError, ...)
        text = exception_line(exc)
        facts = failure_facts(spec, "store", text, time.monotonic() - started, log[0] if log else "")
        raise RendezvousFailed(text, facts) from None
    return dist.PrefixStore(f"doctor/{spec.run_id}/", store)


def join(store: Any, spec: JobSpec, node: str, address: str, timeout_s: float) -> Layout:
    """Register, then wait for rank 0's layout. Rank 0 waits for every rank until timeout_s."""
    started = time.monotonic()
    store.set(f"join/{spec.rank}", json.dumps({"node": node, "address": address}))
    store.add("joined", 1)
    if spec.rank == 0:
        layout = _collect(store, spec.world_size, timeout_s)
        store.set("layout", layout.to_json())
    else:
        try:
            store.wait(["layout"], timedelta(seconds=timeout_s + 10))
        except Exception as exc:  # noqa: BLE001
            text = exception_line(exc)
            raise RendezvousFailed(f"rank 0 never published the job layout: {text}",
                                   failure_facts(spec, "join", text, time.monotonic() - started)) from None
        layout = Layout.from_json(store.get("layout").decode())
    if layout.missing:
        missing = ",".join(str(r) for r in layout.missing[:50])
        fact = RendezvousResult(rank=spec.rank, node=node, phase="join", outcome="missing_ranks", host=spec.master_addr,
                                port=spec.master_port, seconds=round(time.monotonic() - started, 3),
                                joined=spec.world_size - len(layout.missing), expected=spec.world_size, missing=missing,
                                origin=_origin(f"{spec.world_size - len(layout.missing)}/{spec.world_size} ranks joined; "
                                               f"missing ranks {missing}"))
        raise RendezvousFailed(f"ranks {missing} never joined within {timeout_s:g}s", [fact])
    return layout


def _collect(store: Any, world: int, timeout_s: float) -> Layout:
    deadline = time.monotonic() + timeout_s
    while store.add("joined", 0) < world and time.monotonic() < deadline:
        time.sleep(POLL_S)
    layout = Layout()
    for rank in range(world):
        if not store.check([f"join/{rank}"]):
            layout.missing.append(rank)
            continue
        info = json.loads(store.get(f"join/{rank}").decode())
        node, address = str(info["node"]), str(info.get("address", ""))
        if node in layout.addresses and layout.addresses[node] != address:
            node = f"{node}@{address}"          # two machines with one host name (cloned images): told apart
        if node not in layout.ranks:
            layout.nodes.append(node)
            layout.ranks[node] = []
            layout.addresses[node] = address
        layout.ranks[node].append(rank)
    return layout


def exception_line(exc: BaseException) -> str:
    """The exception as its traceback's last line reads: 'torch.distributed.DistNetworkError: ...'."""
    cls = type(exc)
    module = cls.__module__.replace("torch._C._distributed_c10d", "torch.distributed")
    name = cls.__name__ if module in ("builtins", "") else f"{module}.{cls.__name__}"
    return f"{name}: {exc}"


def failure_facts(spec: JobSpec, phase: str, text: str, seconds: float, log: str = "") -> list[Fact]:
    """What a failed join says: torch's log and exception through the line probes, our own TCP connect, the outcome."""
    from doctor.cluster.local_gather import node_name
    from doctor.probing.contract import parse_lines
    from probes import LINE_PROBES
    node = node_name()
    facts: list[Fact] = []
    logged = "\n".join(line for line in log.splitlines() if not line.startswith(("frame #", "<omitting", "Exception raised")))
    for probe in LINE_PROBES:
        facts += [_at(f, node, spec.rank) for f in parse_lines(probe, text, source=f"rank {spec.rank} {phase} error", node=node)]
        if logged:
            facts += [_at(f, node, spec.rank) for f in parse_lines(probe, logged, source=f"rank {spec.rank} torch log", node=node)]
    reach = tcp_connect(spec.master_addr, spec.master_port, 2.0)
    facts.append(PairReach(node=node, rank=spec.rank, peer="store", host=spec.master_addr, port=spec.master_port,
                           outcome=reach[0], reachable=reach[0] == "ok", seconds=reach[1],
                           origin=_origin(f"TCP connect {spec.master_addr}:{spec.master_port}: {reach[0]} after {reach[1]:.2f}s")))
    facts.append(RendezvousResult(node=node, rank=spec.rank, phase=phase, outcome=classify(text), host=spec.master_addr,
                                  port=spec.master_port, seconds=round(seconds, 3), origin=_origin(text[:300])))
    return facts


def _at(fact: Fact, node: str, rank: int) -> Fact:
    from dataclasses import replace
    return replace(fact, node=fact.node or node, rank=rank if fact.rank < 0 else fact.rank)


def classify(text: str) -> str:
    low = text.lower()
    for words, outcome in (("address already in use", "in_use"), ("eaddrinuse", "in_use"), ("gai error", "unresolved"),
                           ("name or service not known", "unresolved"), ("refused", "refused"), ("errno: 111", "refused"),
                           ("timed out", "timeout"), ("timeout", "timeout")):
        if words in low:
            return outcome
    return "failed"


def tcp_connect(host: str, port: int, timeout_s: float) -> tuple[str, float]:
    """(ok | refused | timeout | unreachable | unresolved, seconds) of one TCP connect."""
    started = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            outcome = "ok"
    except socket.timeout:
        outcome = "timeout"
    except ConnectionRefusedError:
        outcome = "refused"
    except socket.gaierror:
        outcome = "unresolved"
    except OSError:
        outcome = "unreachable"
    return outcome, round(time.monotonic() - started, 3)


def _origin(text: str):  # type: ignore[no-untyped-def]
    from doctor.facts import Origin
    return Origin(source="doctor cluster", line=0, text=text, probe="cluster", mode="live")
