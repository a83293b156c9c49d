"""Derived launch facts for the other launchers: two processes or machines claiming one rank, a multi-node
DeepSpeed launch that fell back to local resources."""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Iterable

from doctor.facts import Fact
from doctor.facts.launch import LaunchOption
from doctor.facts.launchers import (Hostfile, HostfileIgnored, RankAnnounce, RankBeyondWorld, RankDuplicate, RanksMissing,
                                    RanksRegistered)
from doctor.facts.logline import ErrorLine


_WAIT_TIMED_OUT = re.compile(r"DistStoreError|TimeoutError|[Tt]imed out|\b[Tt]imeout\b")


def _of(facts: Iterable[Fact], cls: type[Fact]) -> list:
    return [f for f in facts if isinstance(f, cls)]


def announced_rank_duplicates(facts: list[Fact]) -> list[Fact]:
    """The same GLOBAL_RANK announced twice in the same wording while other ranks never appear.

    One process logging through two handlers writes each line in two wordings: that is not a duplicate.
    A requeued job announces every rank again: with every rank present it is not flagged either.
    """
    out: list[Fact] = []
    by_form: dict[tuple[str, str], list[RankAnnounce]] = defaultdict(list)
    for a in _of(facts, RankAnnounce):
        by_form[(a.framework, a.form)].append(a)
    distinct: dict[str, set[int]] = defaultdict(set)
    for (framework, _), items in by_form.items():
        distinct[framework].update(a.global_rank for a in items)
    for (framework, _), items in sorted(by_form.items()):
        world = max(a.world for a in items)
        counts = Counter(a.global_rank for a in items)
        if world <= 0 or len(distinct[framework]) >= world:
            continue
        for rank, count in sorted(counts.items()):
            if count > 1:
                witness = [a for a in items if a.global_rank == rank][1]
                out.append(RankDuplicate(node=witness.node, rank=rank, origin=witness.origin, framework=framework,
                                         global_rank=rank, count=count, world=world, distinct=len(distinct[framework])))
    return out


def ranks_never_registered(facts: list[Fact]) -> list[Fact]:
    """Rank 0 announced itself, only some of the world's ranks ever did, none twice, and rank 0 never printed that
    all processes registered: the missing processes were never started (or never reached init)."""
    out: list[Fact] = []
    registered = {r.framework for r in _of(facts, RanksRegistered)}
    by_framework: dict[str, list[RankAnnounce]] = defaultdict(list)
    for a in _of(facts, RankAnnounce):
        by_framework[a.framework].append(a)
    for framework, items in sorted(by_framework.items()):
        world = max(a.world for a in items)
        ranks = Counter(a.global_rank for a in items)
        duplicated = any(n > 1 for n in Counter((a.form, a.global_rank) for a in items).values())
        if framework in registered or 0 not in ranks or world <= len(ranks) or duplicated:
            continue
        first = min(items, key=lambda a: a.origin.line)
        if _failed_after(facts, first):
            continue
        out.append(RanksMissing(node=first.node, origin=first.origin, framework=framework, world=world,
                                announced=len(ranks)))
    return out


def ranks_beyond_world(facts: list[Fact]) -> list[Fact]:
    """A process announced a global rank at or past its own world size (Lightning's "GLOBAL_RANK: 1, MEMBER: 2/1"):
    the ranks and the world size were computed from different numbers of nodes or processes. One fact per framework."""
    out: list[Fact] = []
    seen: set[str] = set()
    for a in sorted(_of(facts, RankAnnounce), key=lambda a: (a.origin.source, a.origin.line)):
        if 0 < a.world <= a.global_rank and a.framework not in seen:
            seen.add(a.framework)
            out.append(RankBeyondWorld(node=a.node, origin=a.origin, framework=a.framework, global_rank=a.global_rank,
                                       world=a.world))
    return out


def _failed_after(facts: list[Fact], first: RankAnnounce) -> bool:
    """Error lines later in the file of the first announcement, none of them the wait itself timing out: the log did
    not stop waiting for processes that never started; something else failed (often the other ranks at their own
    start), and that line is the lead. A store timeout (DistStoreError, "Timed out ... waiting for clients") is the
    wait ending and keeps the reading."""
    after = [e for e in _of(facts, ErrorLine)
             if e.origin.source == first.origin.source and e.origin.line > first.origin.line]
    return bool(after) and not any(_WAIT_TIMED_OUT.search(e.text) for e in after)


def machine_rank_duplicates(facts: list[Fact]) -> list[Fact]:
    """accelerate configs of several machines (one per node) that give two machines the same machine_rank."""
    options = [o for o in _of(facts, LaunchOption) if o.launcher == "accelerate"]
    machines = max((int(o.value) for o in options if o.name == "num_machines" and o.value.isdigit()), default=0)
    ranks: dict[str, list[LaunchOption]] = defaultdict(list)
    for o in options:
        if o.name == "machine_rank" and o.value.isdigit():
            ranks[o.value].append(o)
    out: list[Fact] = []
    for value, items in sorted(ranks.items()):
        nodes = {o.node for o in items}
        if machines > 1 and len(nodes) > 1:
            out.append(RankDuplicate(node=items[1].node, origin=items[1].origin, framework="accelerate",
                                     global_rank=int(value), count=len(nodes), world=machines, distinct=len(ranks)))
    return out


# accelerate launch with DeepSpeed on several machines starts DeepSpeed's own runner (pdsh by default), which
# reads the hostfile: its --num_machines is then the node count DeepSpeed was asked for
_RUNS_DEEPSPEEDS_RUNNER = {"deepspeed": ("deepspeed", "accelerate")}


def _several(value: str) -> bool:
    """A node count above one, or a shell variable ($WORKER_NUM): a script written for several nodes."""
    return (value.isdigit() and int(value) > 1) or value.startswith("$")


def hostfile_ignored(facts: list[Fact]) -> list[Fact]:
    """DeepSpeed said 'Unable to find hostfile' although the launch asked for several nodes or named a hostfile."""
    missing = [h for h in _of(facts, Hostfile) if not h.found]
    if not missing:
        return []
    wanted = [o for o in _of(facts, LaunchOption) if o.launcher in _RUNS_DEEPSPEEDS_RUNNER.get(missing[0].launcher, ())
              and ((o.name in ("num_nodes", "num_machines") and _several(o.value)) or o.name == "hostfile")]
    if not wanted:
        return []
    w = wanted[0]
    return [HostfileIgnored(node=missing[0].node, origin=missing[0].origin, launcher=missing[0].launcher,
                            wanted=f"--{w.name} {w.value}".strip())]


LAUNCH_AGGREGATORS = (announced_rank_duplicates, ranks_never_registered, ranks_beyond_world, machine_rank_duplicates,
                      hostfile_ignored)
