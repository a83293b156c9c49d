"""One rank's part of `doctor cluster`, phase by phase, each bounded; rank 0 ends up with every rank's facts.

  gather node facts -> store + join (layout) -> TCP reachability between nodes -> gloo process group
  -> per-rank timing -> bus bandwidth sweep -> pair tests -> facts to rank 0 (gloo, or the store)

A failed join raises RendezvousFailed with the facts of why (rendezvous.py); a blocked node pair skips the
gloo mesh (it would wait out gloo's 30 s connect timeout) and the facts travel through the store instead.
A watchdog ends the process with exit code 3 when the whole run overruns its deadline.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from doctor.cluster import collect, node_facts, wire
from doctor.cluster.launch import JobSpec
from doctor.cluster.local_gather import node_name
from doctor.facts import Fact, Origin
from doctor.facts.cluster import ClusterRank, NodeInfo
from doctor.facts.status import ProbeStatus

DEADLINE_EXIT = 3


@dataclass
class Options:
    rendezvous_timeout_s: float = 30.0
    deadline_s: float = 120.0
    pg_timeout_s: float = 30.0
    probe_port: int = 0
    connect_timeout_s: float = 3.0
    backend: str = "auto"              # auto | gloo | nccl (bandwidth and pair tests; facts always go over gloo)
    bandwidth_s: float = 4.0           # 0 turns the sweep off
    pairs_s: float = 8.0               # 0 turns the pair tests off
    pair_bytes: int = 2**20
    timing: bool = True


@dataclass
class Outcome:
    """What one rank ends with. Rank 0: every rank's facts; another rank: nothing to print."""

    rank: int
    facts: list[Fact] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)


class Phases:
    """Seconds per phase, and the phase now running (for the watchdog's message)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.current = "start"
        self._t = time.monotonic()
        self.started = self._t

    def done(self, name: str) -> None:
        now = time.monotonic()
        self.seconds[name] = round(now - self._t, 3)
        self._t = now

    def enter(self, name: str) -> None:
        self.current = name


def watchdog(rank: int, phases: Phases, deadline_s: float) -> threading.Timer:
    def expire() -> None:
        from doctor.cluster.rendezvous import stderr_fd
        os.write(stderr_fd(), f"doctor cluster: rank {rank} gave up after {deadline_s:g}s (deadline) while in phase "
                              f"'{phases.current}'\n".encode())
        os._exit(DEADLINE_EXIT)
    timer = threading.Timer(deadline_s, expire)
    timer.daemon = True
    timer.start()
    return timer


def run(spec: JobSpec, opts: Options, phases: Phases) -> Outcome:
    from doctor.cluster import rendezvous
    phases.enter("import torch")
    import torch  # noqa: F401 - timed here: the first import is most of a rank's start-up
    import torch.distributed as dist
    phases.done("import_torch")
    node = node_name()
    phases.enter("gather node facts")
    mine: list[Fact] = node_facts.gather(opts.deadline_s / 4) if spec.local_rank == 0 else []
    backend, device = pick_backend(opts.backend, spec.local_rank)
    mine.append(ClusterRank(node=node, rank=spec.rank, world_size=spec.world_size, local_rank=spec.local_rank,
                            launcher=spec.launcher, backend=backend, pid=os.getpid(),
                            origin=_origin(f"rank {spec.rank}/{spec.world_size} on {node} ({spec.launcher}), pid {os.getpid()}")))
    phases.done("gather_node")
    phases.enter("rendezvous")
    try:
        store = rendezvous.connect_store(spec, opts.rendezvous_timeout_s)
        address = rendezvous.local_address(spec.master_addr, spec.master_port)
        layout = rendezvous.join(store, spec, node, address, opts.rendezvous_timeout_s)
    except rendezvous.RendezvousFailed as err:
        err.facts = mine + err.facts
        raise
    if layout.node_of(spec.rank) != node:      # renamed by rank 0: another machine has this host name
        renamed = layout.node_of(spec.rank)
        mine = [replace(f, node=renamed) if f.node == node else f for f in mine]
        node = renamed
    mine = [replace(f, address=address) if isinstance(f, NodeInfo) else f for f in mine]
    phases.done("rendezvous")
    phases.enter("reachability")
    from doctor.cluster import reach
    reach_facts, unreachable = reach.run(store, layout, node, spec.rank, opts.probe_port, opts.connect_timeout_s,
                                         opts.rendezvous_timeout_s)
    mine += reach_facts
    phases.done("reachability")
    transport = "store"
    if unreachable:
        mine.append(_skipped(node, spec.rank, "process_group", f"gloo mesh not built: {'; '.join(unreachable[:5])}"))
    else:
        phases.enter("process group")
        log: list[str] = []
        try:
            with rendezvous.torch_log(log):
                dist.init_process_group("gloo", store=dist.PrefixStore("pg/", store), rank=spec.rank,
                                        world_size=spec.world_size, timeout=timedelta(seconds=opts.pg_timeout_s))
            transport = "gloo"
        except Exception as exc:  # noqa: BLE001 - every rank reports why, through the store
            text = rendezvous.exception_line(exc)
            mine += rendezvous.failure_facts(spec, "process_group", text, time.monotonic() - phases.started, log[0])
        phases.done("process_group")
    if transport == "gloo":
        mine += active_tests(spec, opts, phases, layout, node, backend, device)
    phases.enter("collect facts")
    payload = wire.encode(spec.rank, node, mine)
    if transport == "gloo":
        received: list[bytes | None] | None = collect.over_gloo(payload, spec.rank, spec.world_size)  # type: ignore[assignment]
        dist.destroy_process_group()
    else:
        received = collect.over_store(store, payload, spec.rank, spec.world_size, opts.rendezvous_timeout_s)
        collect.wait_done(store, spec.rank, opts.rendezvous_timeout_s)
    phases.done("collect")
    if spec.rank != 0 or received is None:
        return Outcome(spec.rank)
    return root_outcome(spec, layout, received, transport, unreachable, phases)


def active_tests(spec: JobSpec, opts: Options, phases: Phases, layout: Any, node: str, backend: str,
                 device: str) -> list[Fact]:
    from doctor.cluster import measure, pairwise
    import torch.distributed as dist
    out: list[Fact] = []
    group = dist.new_group(backend="nccl") if backend == "nccl" else None
    if opts.timing:
        phases.enter("timing")
        out.append(measure.time_work(node, spec.rank, device, len(layout.ranks[node])))
        phases.done("timing")
    if opts.bandwidth_s > 0:
        phases.enter("bandwidth")
        out += measure.sweep(node, spec.rank, spec.world_size, len(layout.nodes), backend, device, opts.bandwidth_s,
                             group=group)
        phases.done("bandwidth")
    if opts.pairs_s > 0 and len(layout.nodes) > 1:
        phases.enter("pair tests")
        out += pairwise.run(layout, node, spec.rank, spec.world_size, opts.pairs_s, device, opts.pair_bytes, group)
        phases.done("pairs")
    elif spec.rank == 0:
        out.append(_skipped(node, spec.rank, "pair_tests", "one node: no node pair to test"
                            if len(layout.nodes) < 2 else "turned off"))
    return out


def pick_backend(wanted: str, local_rank: int) -> tuple[str, str]:
    """(backend, device) of the bandwidth tests: NCCL on a GPU when there is one, else gloo on the CPU."""
    import torch
    import torch.distributed as dist
    gpu = torch.cuda.is_available() and dist.is_nccl_available()
    if wanted == "nccl" or (wanted == "auto" and gpu):
        if not gpu:
            from doctor.errors import UsageError
            raise UsageError("--backend nccl needs a CUDA GPU and a torch build with NCCL")
        count = torch.cuda.device_count()
        torch.cuda.set_device(local_rank % count)
        return "nccl", f"cuda:{local_rank % count}"
    return "gloo", "cpu"


def root_outcome(spec: JobSpec, layout: Any, received: list[bytes | None], transport: str, unreachable: list[str],
                 phases: Phases) -> Outcome:
    facts: list[Fact] = []
    dropped, silent, sizes = 0, [], []
    for rank, data in enumerate(received):
        if data is None:
            silent.append(rank)
            continue
        sizes.append(len(data))
        decoded = wire.decode(data)
        facts += decoded.facts
        dropped += decoded.dropped + (1 if decoded.error else 0)
    summary = {
        "world_size": spec.world_size, "ranks": len(sizes), "launcher": spec.launcher, "transport": transport,
        "nodes": [{"name": n, "ranks": layout.ranks[n], "address": layout.addresses.get(n, "")} for n in layout.nodes],
        "silent_ranks": silent, "unreachable": unreachable, "dropped_facts": dropped,
        "payload_bytes": {"total": sum(sizes), "max": max(sizes, default=0), "mean": round(sum(sizes) / max(len(sizes), 1))},
        "facts": len(facts), "phases": phases.seconds,
    }
    return Outcome(0, facts, summary)


def _skipped(node: str, rank: int, probe: str, reason: str) -> ProbeStatus:
    return ProbeStatus(node=node, rank=rank, probe=probe, status="skipped", reason=reason, origin=_origin(reason))


def _origin(text: str) -> Origin:
    return Origin("doctor cluster", 0, text, "cluster", "live")
