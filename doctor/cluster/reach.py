"""TCP reachability between every pair of nodes, through the store only (before any gloo mesh is trusted).

Each node's first rank listens on a port (ephemeral by default, like gloo's and NCCL's own sockets) and
publishes host:port in the store; then it connects to every other node's listener, many at once, each
connect bounded, and publishes its results. Rank 0 reads them all and tells everyone whether the mesh
can be built; a blocked pair is named instead of waiting out gloo's fixed 30 s connect timeout.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from doctor.cluster.rendezvous import Layout, tcp_connect
from doctor.facts.cluster import PairReach

WORKERS = 32


class Listener:
    """Accepts and closes connections until stopped."""

    def __init__(self, port: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", port))
        self.sock.listen(128)
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="doctor-reach", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)
        self.sock.close()


def run(store: Any, layout: Layout, node: str, rank: int, port: int, connect_timeout_s: float,
        wait_s: float) -> tuple[list[PairReach], list[str]]:
    """(this leader's reach facts, the unreachable pairs 'a -> b' of the whole job). Every rank must call it."""
    leader = layout.leader(node) == rank
    listener = Listener(port) if leader and len(layout.nodes) > 1 else None
    facts: list[PairReach] = []
    try:
        if listener is not None:
            store.set(f"reach/addr/{node}", json.dumps({"host": layout.addresses[node], "port": listener.port}))
            facts = _connect_all(store, layout, node, rank, connect_timeout_s, wait_s)
            store.set(f"reach/result/{node}", json.dumps([[f.peer, f.outcome] for f in facts]))
        if rank == 0:
            store.set("reach/verdict", json.dumps(_verdict(store, layout, wait_s + connect_timeout_s)))
        store.wait(["reach/verdict"], timedelta(seconds=2 * (wait_s + connect_timeout_s) + 10))
        bad = list(json.loads(store.get("reach/verdict").decode()))
    finally:
        if listener is not None:
            listener.close()
    return facts, bad


def _connect_all(store: Any, layout: Layout, node: str, rank: int, timeout_s: float, wait_s: float) -> list[PairReach]:
    peers = [n for n in layout.nodes if n != node]
    try:
        store.wait([f"reach/addr/{p}" for p in peers], timedelta(seconds=wait_s))
    except Exception:  # noqa: BLE001 - a peer that never published is reported as not tested
        pass
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(peers))) as pool:
        return list(pool.map(lambda p: _one(store, node, rank, p, timeout_s), peers))


def _one(store: Any, node: str, rank: int, peer: str, timeout_s: float) -> PairReach:
    from doctor.facts import Origin
    if not store.check([f"reach/addr/{peer}"]):
        return PairReach(node=node, rank=rank, peer=peer, outcome="not_tested", reachable=False,
                         origin=Origin("doctor cluster", 0, f"{peer} published no listener", "cluster", "live"))
    addr = json.loads(store.get(f"reach/addr/{peer}").decode())
    outcome, seconds = tcp_connect(addr["host"], int(addr["port"]), timeout_s)
    text = f"TCP connect {node} -> {peer} ({addr['host']}:{addr['port']}): {outcome} after {seconds:.2f}s"
    return PairReach(node=node, rank=rank, peer=peer, host=addr["host"], port=int(addr["port"]), outcome=outcome,
                     reachable=outcome == "ok", seconds=seconds, origin=Origin("doctor cluster", 0, text, "cluster", "live"))


def _verdict(store: Any, layout: Layout, wait_s: float) -> list[str]:
    if len(layout.nodes) < 2:
        return []
    keys = [f"reach/result/{n}" for n in layout.nodes]
    deadline = time.monotonic() + wait_s
    while not all(store.check([k]) for k in keys) and time.monotonic() < deadline:
        time.sleep(0.05)
    bad: list[str] = []
    for n in layout.nodes:
        if not store.check([f"reach/result/{n}"]):
            bad.append(f"{n} -> ? (no result)")
            continue
        bad += [f"{n} -> {peer} ({outcome})" for peer, outcome in json.loads(store.get(f"reach/result/{n}").decode())
                if outcome != "ok"]
    return bad
