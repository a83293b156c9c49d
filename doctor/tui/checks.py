"""Next checks a live probe can answer, as one visible table: check -> callable(report) -> new facts.

A diagnosis's "what to check next" lines are matched against each check's pattern; a check also offers
itself for the causes it bears on. The callables run in a worker thread and must never hang.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from doctor.facts import Fact
    from doctor.rank import Diagnosis
    from doctor.report.model import Report

STORE_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class CheckResult:
    facts: list[Fact]
    summary: str                   # one line for the notification


@dataclass(frozen=True)
class LiveCheck:
    name: str
    answers: re.Pattern[str]       # next-check sentences this check answers
    causes: frozenset[str]         # causes it bears on: offered for them even without a matching sentence
    describe: Callable[[Report], str]
    run: Callable[[Report], CheckResult]


@dataclass(frozen=True)
class NextItem:
    text: str
    check: LiveCheck | None = None


def store_target(report: Report) -> tuple[str, int] | None:
    """The store address the job used: a failed store connect, a rendezvous endpoint, MASTER_* facts, this env."""
    from doctor.facts.env import EnvVar
    from doctor.facts.launch import ConnectError, RendezvousEndpoint
    for f in report.facts:
        if isinstance(f, ConnectError) and f.transport in ("store", "rdzv") and f.host and f.port > 0:
            return f.host, f.port
    for f in report.facts:
        if isinstance(f, RendezvousEndpoint) and f.host and f.port > 0:
            return f.host, f.port
    env = {f.name: f.value for f in report.facts if isinstance(f, EnvVar)}
    for source in (env, os.environ):
        host, port = source.get("MASTER_ADDR", ""), source.get("MASTER_PORT", "")
        if host and port.isdigit():
            return host, int(port)
    return None


def describe_store(report: Report) -> str:
    target = store_target(report)
    if target is None:
        return "Is the store port reachable from this node? (needs MASTER_ADDR and MASTER_PORT)"
    return f"Is {target[0]}:{target[1]} reachable from this node? (TCP connect, {STORE_TIMEOUT_S:g} s)"


def run_store(report: Report) -> CheckResult:
    from probes.store_port import connect
    target = store_target(report)
    if target is None:
        return CheckResult([], "no store address known: set MASTER_ADDR and MASTER_PORT, or open a log that names it")
    fact = connect(*target, timeout_s=STORE_TIMEOUT_S)
    return CheckResult([fact], fact.origin.text)


LIVE_CHECKS: tuple[LiveCheck, ...] = (
    LiveCheck("store_port", re.compile(r"reachab|MASTER_PORT|store port|answers|TCP connect|nc -z", re.I),
              frozenset({"port_blocked", "master_addr_wrong"}), describe_store, run_store),
)


def next_items(diagnosis: Diagnosis, report: Report, checks: tuple[LiveCheck, ...] = LIVE_CHECKS) -> list[NextItem]:
    """The diagnosis's next checks, each with the live check that answers it; then checks offered for its cause."""
    items: list[NextItem] = []
    used: set[str] = set()
    for text in diagnosis.next_checks:
        check = next((c for c in checks if c.answers.search(text)), None)
        items.append(NextItem(text, check))
        if check:
            used.add(check.name)
    for check in checks:
        if diagnosis.cause in check.causes and check.name not in used:
            items.append(NextItem(check.describe(report), check))
    return items


def movement(cause: str, before: Report, after: Report) -> str:
    """How one cause moved: 'port_blocked 0.60 #1 -> 0.24 #2'."""
    def place(report: Report) -> str:
        for i, d in enumerate(report.diagnoses, 1):
            if d.cause == cause:
                return f"{d.confidence:.2f} #{i}"
        return "gone"
    old, new = place(before), place(after)
    return f"{cause}: {old} (unchanged)" if old == new else f"{cause}: {old} → {new}"
