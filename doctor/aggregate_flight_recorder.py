"""Flight Recorder dumps across ranks: the first sequence id where the ranks of a process group disagree, and who.

Each rank's dump gives one FrGroupRank per process group (probes/flight_recorder.py) with its ops in order. Per
group this aligns the ranks by sequence id, from the newest first sequence id any rank still holds (ring buffers
that wrapped at different points hold different oldest entries), and reports the first of:
  dead      a rank of the group left no dump at all, while the others did not finish;
  p2p       a recv that no send of its peer matches (or a send no recv matches);
  op/sizes/dtypes  at one sequence id the ranks ran different collectives, shapes or dtypes (the minority is the
            culprit; in a tie, the rank whose op differs from what it ran before at the same point is);
  behind    some ranks never started the op the others started;
  all_waiting  every rank entered the same op with the same shapes and none finished (the timeout, or the link);
  timeout_short  all agree and finished, but the last op's data could not move within its timeout_ms at NEED_GBPS.
"""
from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from doctor.facts import Fact
from doctor.facts.flight_recorder import (FrDump, FrGroupRank, FrMismatch, InspectorRank, NcclCommFinding, ProcessStack,
                                          StackOutlier)

NEED_GBPS = 10.0       # a timeout that asks for more than this to move one op's data is too short for the work
DTYPE_BYTES = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4, "Byte": 1, "Char": 1,
               "Bool": 1, "Short": 2}


@dataclass(frozen=True)
class Op:
    p2p: bool
    seq: int
    name: str
    in_sizes: str
    out_sizes: str
    dtypes: str
    state: str
    timeout_ms: int

    @property
    def signature(self) -> tuple[str, str, str, str]:
        return self.name, self.in_sizes, self.out_sizes, self.dtypes

    @property
    def nbytes(self) -> int:
        shapes = json.loads(self.in_sizes) if self.in_sizes else []
        if not shapes:
            return 0
        width = DTYPE_BYTES.get(self.dtypes.split(",")[0], 4)
        return math.prod(shapes[0]) * width


def parse_op(line: str) -> Op:
    kind, seq, name, ins, outs, dtypes, state, timeout = line.split("|")
    return Op(kind == "p", int(seq), name, ins, outs, dtypes, state, int(timeout))


def _ranks_text(ranks: list[int] | set[int] | dict[int, object]) -> str:
    """1, 3, 5 or, for runs, 0-516, 518-1023."""
    parts: list[str] = []
    ordered = sorted(ranks)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(f"{ordered[i]}-{ordered[j]}" if j - i >= 2 else ", ".join(map(str, ordered[i:j + 1])))
        i = j + 1
    return ", ".join(parts)


def _where(stack: str) -> str:
    """The innermost frame outside torch and the multiprocessing machinery: the user's line."""
    for frame in stack.splitlines():
        if "/torch/" not in frame and "multiprocessing" not in frame and "<string>" not in frame:
            return frame
    return ""


@dataclass
class Group:
    pg: str
    desc: str
    views: dict[int, FrGroupRank]
    members: set[int]

    def ops(self, rank: int) -> list[Op]:
        return [parse_op(line) for line in self.views[rank].ops]

    def collectives(self) -> dict[int, dict[int, Op]]:
        return {r: {op.seq: op for op in self.ops(r) if not op.p2p} for r in self.views}


def groups_of(facts: list[Fact]) -> list[Group]:
    dumps = [f for f in facts if isinstance(f, FrDump) and f.rank >= 0]
    world = max((d.world for d in dumps), default=-1)
    views: dict[tuple[str, str], dict[int, FrGroupRank]] = defaultdict(dict)
    for f in facts:
        if isinstance(f, FrGroupRank) and f.rank >= 0:
            views[(f.pg, f.pg_desc)][f.rank] = f
    out = []
    for (pg, desc), by_rank in sorted(views.items()):
        members = set(by_rank)
        listed = next((v.group_ranks for v in by_rank.values() if v.group_ranks.strip("[] ")), "")
        if listed:
            members |= {int(r) for r in listed.strip("[]").split(",") if r.strip().isdigit()}
        elif (desc == "default_pg" or pg == "0" or any(v.group_size == world for v in by_rank.values())) and world > 0:
            members |= set(range(world))
        out.append(Group(pg, desc, by_rank, members))
    return out


def flight_recorder(facts: list[Fact]) -> list[Fact]:
    """One FrMismatch per process group whose ranks disagree or wait."""
    if not any(isinstance(f, FrGroupRank) for f in facts):
        return []
    dumped = {f.rank for f in facts if isinstance(f, FrDump)}
    out: list[Fact] = []
    for group in groups_of(facts):
        found = first_disagreement(group, dumped)
        if found is not None:
            out.append(found)
    return out


def first_disagreement(group: Group, dumped: set[int]) -> FrMismatch | None:
    colls = group.collectives()
    last = {r: max(ops, default=-1) for r, ops in colls.items()}
    unfinished = any(op.state != "completed" for ops in colls.values() for op in ops.values())
    dead = group.members - dumped
    if dead and (unfinished or group.desc == "default_pg"):
        return _dead(group, colls, dead, last)
    for check in (_p2p, _collective):
        found = check(group, colls, last)
        if found is not None:
            return found
    return None


def _mismatch(group: Group, kind: str, seq: int, culprits: set[int], last: dict[int, int],
              culprit_op: Op | None, others: dict[int, Op], **extra: object) -> FrMismatch:
    witness = min(others) if others else min(group.views)
    ref = others.get(witness)
    culprit = min(culprits)
    view = group.views.get(culprit) or group.views[witness]
    lo, hi = min(last.values(), default=-1), max(last.values(), default=-1)
    fields: dict[str, object] = dict(
        pg=group.pg, pg_desc=group.desc, seq=seq, disagreement=kind, culprits=_ranks_text(culprits),
        culprit_op=culprit_op.name if culprit_op else "", culprit_sizes=culprit_op.in_sizes if culprit_op else "",
        culprit_dtypes=culprit_op.dtypes if culprit_op else "",
        op=ref.name if ref else "", sizes=ref.in_sizes if ref else "", dtypes=ref.dtypes if ref else "",
        others=_ranks_text(others), witness=witness,
        behind=_ranks_text([r for r, s in last.items() if s == lo]) if lo < hi else "",
        ahead=_ranks_text([r for r, s in last.items() if s == hi]) if lo < hi else "",
        ranks=len(group.members), timeout_ms=ref.timeout_ms if ref else -1, nbytes=ref.nbytes if ref else -1,
        need_gbps=round(need_gbps(ref), 1) if ref else -1.0,
        where=_where(view.stack) or _where(group.views[witness].stack))
    fields.update(extra)
    text = _describe(fields)
    return FrMismatch(node=view.node, rank=culprit, origin=replace(view.origin, text=text), **fields)


def _describe(f: dict[str, object]) -> str:
    return (f"process group {f['pg']} ({f['pg_desc'] or '-'}) #{f['seq']}: {f['disagreement']}; "
            f"rank(s) {f['culprits']} ran {f['culprit_op'] or 'nothing'} {f['culprit_sizes']}, "
            f"rank(s) {f['others']} ran {f['op']} {f['sizes']}")


def _dead(group: Group, colls: dict[int, dict[int, Op]], dead: set[int], last: dict[int, int]) -> FrMismatch:
    """The op the surviving ranks are stuck in (their oldest unfinished one), or their last one."""
    stuck = [op for ops in colls.values() for op in ops.values() if op.state != "completed"]
    seq = min((op.seq for op in stuck), default=max(last.values(), default=-1))
    others = {r: ops[seq] for r, ops in colls.items() if seq in ops}
    return _mismatch(group, "dead", seq, dead, last, None, others)


def _p2p(group: Group, colls: dict[int, dict[int, Op]], last: dict[int, int]) -> FrMismatch | None:
    """Pair the n-th send of a rank with the n-th recv of its peer (two-rank groups: the peer is the other rank)."""
    if len(group.members) != 2:
        return None
    a, b = sorted(group.members)
    if a not in group.views or b not in group.views:
        return None
    p2p = {r: [op for op in group.ops(r) if op.p2p] for r in (a, b)}
    for me, peer in ((a, b), (b, a)):
        for kind, counterpart in (("recv", "send"), ("send", "recv")):
            mine = [op for op in p2p[me] if op.name.startswith(kind)]
            theirs = [op for op in p2p[peer] if op.name.startswith(counterpart)]
            for index, op in enumerate(mine):
                if index >= len(theirs) and op.state != "completed":
                    missing = Op(True, op.seq, counterpart, op.in_sizes, op.out_sizes, op.dtypes, "", op.timeout_ms)
                    return _mismatch(group, "p2p", op.seq, {peer}, last, missing, {me: op}, peer=me)
                if index < len(theirs) and theirs[index].in_sizes != op.in_sizes:
                    return _mismatch(group, "sizes", op.seq, {peer}, last, theirs[index], {me: op}, peer=me)
    return None


def _collective(group: Group, colls: dict[int, dict[int, Op]], last: dict[int, int]) -> FrMismatch | None:
    ranks = [r for r in sorted(group.members) if r in colls]
    if len(ranks) < 2:
        return None
    start = max(min(colls[r], default=0) for r in ranks)      # partial buffers: compare only what all still hold
    end = max(last[r] for r in ranks)
    for seq in range(start, end + 1):
        present = {r: colls[r][seq] for r in ranks if seq in colls[r]}
        if not present:
            continue
        by_sig: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
        for r, op in present.items():
            by_sig[op.signature].append(r)
        if len(by_sig) > 1:
            return _split(group, seq, present, by_sig, last)
        missing = {r for r in ranks if r not in present and last[r] < seq}
        if missing:
            return _mismatch(group, "behind", seq, missing, last, None, present)
    tail = {r: colls[r][end] for r in ranks if end in colls[r]}
    if len(tail) != len(ranks):
        return None
    ref = tail[min(tail)]
    if all(op.state != "completed" for op in tail.values()):
        return _mismatch(group, "all_waiting", end, set(tail), last, ref, tail)
    need = need_gbps(ref)
    if need >= NEED_GBPS:
        return _mismatch(group, "timeout_short", end, set(tail), last, ref, tail)
    return None


def need_gbps(op: Op) -> float:
    """The bandwidth (GB/s) the op's first input needs to move within its timeout: far above what a link gives, the
    timeout cannot be met even by a healthy job."""
    return op.nbytes / (op.timeout_ms / 1000) / 1e9 if op.timeout_ms > 0 else 0.0


def _split(group: Group, seq: int, present: dict[int, Op], by_sig: dict[tuple[str, str, str, str], list[int]],
           last: dict[int, int]) -> FrMismatch:
    counts = Counter({sig: len(rs) for sig, rs in by_sig.items()})
    ordered = sorted(by_sig, key=lambda sig: (-counts[sig], min(by_sig[sig])))
    majority = ordered[0]
    culprits = {r for sig in ordered[1:] for r in by_sig[sig]}
    others = {r: present[r] for r in by_sig[majority]}
    culprit_op = present[min(culprits)]
    ref = others[min(others)]
    kind = "op" if culprit_op.name != ref.name else "sizes" if (culprit_op.in_sizes, culprit_op.out_sizes) != (
        ref.in_sizes, ref.out_sizes) else "dtypes"
    return _mismatch(group, kind, seq, culprits, last, culprit_op, others)


def stack_outliers(facts: list[Fact]) -> list[Fact]:
    """From py-spy dumps of several ranks: the ranks outside any collective while the others wait inside one."""
    stacks = {f.rank: f for f in facts if isinstance(f, ProcessStack) and f.rank >= 0}
    inside = {r: s for r, s in stacks.items() if s.collective}
    outside = {r: s for r, s in stacks.items() if not s.collective}
    if not inside or not outside or len(outside) >= len(inside):
        return []
    op = Counter(s.collective for s in inside.values()).most_common(1)[0][0]
    first = stacks[min(outside)]
    return [StackOutlier(node=first.node, rank=first.rank, origin=first.origin, culprits=_ranks_text(outside),
                         where=first.where, op=op, others=_ranks_text(inside))]


def inspector_lag(facts: list[Fact]) -> list[Fact]:
    """NCCL Inspector logs of several ranks: per communicator, the ranks whose last collective is behind the rest."""
    by_comm: dict[str, dict[int, InspectorRank]] = defaultdict(dict)
    for f in facts:
        if isinstance(f, InspectorRank) and f.rank >= 0:
            by_comm[f.comm][f.rank] = f
    out: list[Fact] = []
    for comm, ranks in sorted(by_comm.items()):
        top = max(r.last_sn for r in ranks.values())
        behind = {r: v for r, v in ranks.items() if v.last_sn < top}
        if not behind or len(behind) * 2 > len(ranks):
            continue
        first = ranks[min(behind)]
        out.append(NcclCommFinding(node=first.node, rank=first.rank, origin=first.origin, source="inspector",
                                   comm=comm, finding="behind", culprits=_ranks_text(behind), op=first.last_coll,
                                   count=min(v.last_sn for v in behind.values()), majority_count=top,
                                   majority_ranks=len(ranks) - len(behind)))
    return out
