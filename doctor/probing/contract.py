"""The probe contract.

A probe turns raw text into facts with one pure parser, used both on this node (live: it runs a
command or reads NVML/torch and saves the text) and on uploaded files (offline: the same text,
recognised by its content). Two shapes:

- LineProbe: reads logs line by line. It declares literal `triggers`; the scanner hands it only
  lines that contain one, so a 2 GB log costs a fast substring scan, not a regex per line.
- DocumentProbe: reads a whole small artifact (a topology matrix, a pip list) that `sniff`
  recognises from the first 64 KiB.

Outcomes: Ok(facts), Skipped(reason) (absent: tool missing, nothing to read) or Failed(error)
(broken: timeout, crash, garbage). Both of the latter become probe.status facts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Union

from doctor.facts import Fact, Origin
from doctor.printable import printable
from doctor.probing.lines import MAX_LINE, who


@dataclass
class ParseContext:
    """Where the text being parsed came from; facts are emitted through it so each carries its origin."""

    source: str
    node: str = ""                      # label used when lines carry no host prefix
    mode: str = "file"
    probe: str = ""
    facts: list[Fact] = field(default_factory=list)
    _seen: set[tuple[Any, ...]] = field(default_factory=set)
    max_facts: int = 2000               # per probe per input: a log reduces to few salient facts

    def emit(self, cls: type[Fact], line_no: int = 0, line: str = "", *, node: str | None = None,
             rank: int | None = None, **values: Any) -> Fact | None:
        """Record one fact; identical facts (same kind, node, rank and values) are kept once."""
        writer = who(line, self.node) if line else None
        node_v = printable(node if node is not None else (writer.node if writer else self.node))
        rank_v = rank if rank is not None else (writer.rank if writer else -1)
        key = (cls.KIND, node_v, rank_v, tuple(sorted(values.items())))
        if key in self._seen or len(self.facts) >= self.max_facts:
            return None
        self._seen.add(key)
        origin = Origin(printable(self.source), line_no, printable(line.strip()[:300]), self.probe, self.mode)
        values = {k: printable(v) if type(v) is str else v for k, v in values.items()}   # no control chars shown
        fact = cls(node=node_v, rank=rank_v, origin=origin, **values)
        self.facts.append(fact)
        return fact


class LineProbe:
    """A parser of log lines. Subclasses set name/triggers and implement feed(); finish() may add facts."""

    name: ClassVar[str] = ""
    triggers: ClassVar[tuple[str, ...]] = ()
    yields: ClassVar[tuple[str, ...]] = ()
    # A probe that only derives statistics from lines that repeat all through a log (per-step timings)
    # sets sampled: on a big input it reads evenly spaced samples of the file, not every line, so the
    # full scan stays a scan for rare lines (scan.py, blocks.py).
    sampled: ClassVar[bool] = False

    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx

    def wants(self, line: str) -> bool:
        return any(t in line for t in self.triggers)

    def feed(self, line_no: int, line: str) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Called once after the last line."""


class DocumentProbe:
    """A parser of one whole artifact. sniff() recognises it by content; parse() emits facts."""

    name: ClassVar[str] = ""
    yields: ClassVar[tuple[str, ...]] = ()
    live: ClassVar[tuple[str, ...] | None] = None   # argv to produce this artifact on a node
    timeout_s: ClassVar[float] = 10.0
    max_bytes: ClassVar[int] = 16 * 2**20

    @classmethod
    def sniff(cls, head: str) -> bool:
        raise NotImplementedError

    def parse(self, text: str, ctx: ParseContext) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Ok:
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class Skipped:
    reason: str


@dataclass(frozen=True)
class Failed:
    error: str


Outcome = Union[Ok, Skipped, Failed]


def parse_lines(probe_cls: type[LineProbe], text: str, source: str = "<text>", node: str = "") -> list[Fact]:
    """Run one line probe over an in-memory text: the pure form used by tests and live probes."""
    ctx = ParseContext(source=source, node=node, probe=probe_cls.name)
    probe = probe_cls(ctx)
    for number, line in enumerate(text.splitlines(), start=1):
        line = line[:MAX_LINE]
        if probe.wants(line):
            probe.feed(number, line)
    probe.finish()
    return ctx.facts


def parse_document(probe_cls: type[DocumentProbe], text: str, source: str = "<text>", node: str = "") -> list[Fact]:
    ctx = ParseContext(source=source, node=node, probe=probe_cls.name)
    probe_cls().parse(text, ctx)
    return ctx.facts


def iter_kinds(facts: Iterable[Fact]) -> list[str]:
    return sorted({f.KIND for f in facts})
