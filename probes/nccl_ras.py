"""NCCL RAS client reports (`ncclras`, `echo status | nc localhost 28028`; NCCL 2.24+), text and `-f json` (2.28.7+).

Recognised by content ("Job summary" / the communicator table; JSON with "nccl_version" and "communicators").
Read into nccl.comm_finding facts: per communicator, the ranks that launched fewer operations of one collective
type than the rest ("Communicator ranks have different AllReduce operation counts"), the ranks whose data is
missing ("INCOMPLETE ... Missing communicator data from 1 rank"), and those whose process RAS considers dead.
Wording from NCCL's src/ras/client_support.cc (see fixtures/ras/README.md). Sample:
    #0-0 (9b3c41e07f2a6d15) MISMATCH
      Communicator ranks have different AllReduce operation counts
      7 ranks have launched up to operation 4213
      Rank 5 has launched up to operation 4212 -- GPU 1 managed by process 88412 on node 10.0.1.12
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from doctor.facts.flight_recorder import NcclCommFinding
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.json_values import json_dicts

_COMM = re.compile(r"^#(\d+-\d+) \(([0-9a-fA-F]+)\) (MISMATCH|INCOMPLETE|ERROR)\s*$")
_OPS = re.compile(r"^  Communicator ranks have different (\w+ )?operation counts")
_GROUP = re.compile(r"^  (\d+) ranks have launched up to operation (\d+)")
_NONE = re.compile(r"^  (\d+) ranks have not launched any operations")
_ONE = re.compile(r"^  Rank (\d+) has (?:launched up to operation (\d+)|not launched any operations)"
                  r"(?: -- GPU (\S+) managed by process (\d+) on node (\S+))?")
_RANK = re.compile(r"^  Rank (\d+) -- (?:GPU (\S+) managed by process (\d+) on node (\S+)|\[process information)")
_MISSING_OLD = re.compile(r"^  The missing ranks?: ([\d, ]+)")
_DEAD_PROC = re.compile(r"^  Process (\d+) on node (\S+) managing GPUs? (\S+)")


@dataclass
class _Comm:
    name: str
    line: int
    text: str
    op: str = ""
    groups: list[tuple[int, int]] = field(default_factory=list)     # (ranks, count), most frequent first
    counts: dict[int, int] = field(default_factory=dict)            # outlier rank -> count
    missing: dict[int, str] = field(default_factory=dict)           # rank -> "process P on node N"
    mode: str = ""


class NcclRasText(DocumentProbe):
    name = "nccl_ras"
    yields = ("nccl.comm_finding",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        return ("Job summary\n===========" in head or "Group     Comms     Nodes" in head) and "Ranks" in head

    def parse(self, text: str, ctx: ParseContext) -> None:
        comms: list[_Comm] = []
        dead: dict[str, tuple[int, str]] = {}
        section = ""
        for number, line in enumerate(text.splitlines(), 1):
            if line in ("DEAD", "INCOMPLETE", "TIMEOUT"):
                section = line
                continue
            if m := _COMM.match(line):
                comms.append(_Comm(f"#{m.group(1)} ({m.group(2)})", number, line, mode=m.group(3)))
                section = "comm"
                continue
            if section == "DEAD" and (m := _DEAD_PROC.match(line)):
                dead[m.group(1)] = (number, line)
            if section != "comm" or not comms:
                continue
            _comm_line(comms[-1], line)
        for comm in comms:
            _emit(ctx, comm, dead)


def _comm_line(comm: _Comm, line: str) -> None:
    if m := _OPS.match(line):
        comm.op = (m.group(1) or "").strip()
        comm.mode = "counts"
    elif m := _GROUP.match(line):
        comm.groups.append((int(m.group(1)), int(m.group(2))))
    elif m := _NONE.match(line):
        comm.groups.append((int(m.group(1)), 0))
    elif m := _ONE.match(line):
        comm.counts[int(m.group(1))] = int(m.group(2) or 0)
    elif (m := _RANK.match(line)) and comm.mode == "INCOMPLETE":
        comm.missing[int(m.group(1))] = f"process {m.group(3)} on node {m.group(4)}" if m.group(3) else ""
    elif (m := _RANK.match(line)) and comm.mode == "counts" and comm.groups:
        comm.counts[int(m.group(1))] = comm.groups[-1][1]
    elif (m := _MISSING_OLD.match(line)) and comm.mode == "INCOMPLETE":
        for rank in m.group(1).split(","):
            if rank.strip().isdigit():
                comm.missing[int(rank)] = ""


def _ranks(ranks) -> str:
    return ", ".join(str(r) for r in sorted(ranks))


def _emit(ctx: ParseContext, comm: _Comm, dead: dict[str, tuple[int, str]]) -> None:
    if comm.missing:
        pids = {proc.split()[1] for proc in comm.missing.values() if proc}
        finding = "dead" if pids & set(dead) else "missing"
        ctx.emit(NcclCommFinding, comm.line, comm.text, source="ras", comm=comm.name, finding=finding,
                 culprits=_ranks(comm.missing), process="; ".join(p for p in comm.missing.values() if p))
    if comm.op or comm.counts:
        majority = comm.groups[0] if comm.groups else (-1, max(comm.counts.values(), default=-1))
        behind = {r: c for r, c in comm.counts.items() if c < majority[1]}
        if behind:
            ctx.emit(NcclCommFinding, comm.line, comm.text, source="ras", comm=comm.name, finding="behind",
                     culprits=_ranks(behind), op=comm.op, count=min(behind.values()), majority_count=majority[1],
                     majority_ranks=majority[0])


class NcclRasJson(DocumentProbe):
    name = "nccl_ras_json"
    yields = ("nccl.comm_finding",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        start = head.lstrip()[:4000]
        return start.startswith("{") and '"nccl_version"' in start and '"communicators' in start

    def parse(self, text: str, ctx: ParseContext) -> None:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return
        comms = data.get("communicators") if isinstance(data, dict) else None
        for comm in comms if isinstance(comms, list) else []:
            if isinstance(comm, dict):
                _emit_json(ctx, comm)


def _emit_json(ctx: ParseContext, comm: dict) -> None:
    name = str(comm.get("hash", "?"))[:40]
    missing = [m for m in json_dicts(comm.get("missing_ranks")) if isinstance(m.get("rank"), int)]
    if missing:
        dead = any(isinstance(m.get("status"), dict) and m["status"].get("considered_dead") is True for m in missing)
        ctx.emit(NcclCommFinding, 0, f"communicator {name}: {len(missing)} missing rank(s)", source="ras", comm=name,
                 finding="dead" if dead else "missing", culprits=_ranks(m["rank"] for m in missing),
                 process="; ".join(f"process {m.get('pid')} on node {m.get('host')}" for m in missing))
    ranks = [r for r in json_dicts(comm.get("ranks")) if isinstance(r.get("collective_counts"), dict)]
    ops = sorted({op for r in ranks for op in r["collective_counts"]})
    for op in ops:
        counts = {r["rank"]: c for r in ranks if isinstance(r.get("rank"), int)
                  and isinstance(c := r["collective_counts"].get(op, 0), int)}
        top = max(counts.values(), default=0)
        behind = {r: c for r, c in counts.items() if c < top}
        if behind and len(behind) < len(counts) - len(behind) + 1:
            ctx.emit(NcclCommFinding, 0, f"communicator {name}: {op} counts differ", source="ras", comm=name,
                     finding="behind", culprits=_ranks(behind), op=op, count=min(behind.values()),
                     majority_count=top, majority_ranks=len(counts) - len(behind))
