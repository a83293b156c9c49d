"""One triage session: gather facts once (files or this node), then diagnose per symptom and re-rank as checks add facts.

No textual here: the app calls these from worker threads, the tests call them directly.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:                       # the first screen paints before these load (in the gathering worker)
    from doctor.facts import Fact
    from doctor.probing.offline import InputRecord
    from doctor.report.model import Report

NO_LIVE_PROBES = "no live probes available on this build"
LIVE_MODULE = "doctor.probing.node"


@dataclass
class Gathered:
    facts: list[Fact] = field(default_factory=list)
    inputs: list[InputRecord] = field(default_factory=list)
    note: str = ""               # one line about the gathering ("no live probes ..."), shown on the first screen


def live_gatherer() -> Callable[[], Any] | None:
    """doctor.probing.node.gather_facts when this build has it (the node probes), else None."""
    try:
        if importlib.util.find_spec(LIVE_MODULE) is None:
            return None
    except (ImportError, ValueError):
        return None
    return getattr(importlib.import_module(LIVE_MODULE), "gather_facts", None)


def gather_files(paths: list[str]) -> Gathered:
    from doctor.probing.offline import gather_files as gather
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    out = gather(paths, LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES)
    return Gathered(list(out.facts), list(out.inputs))


def gather_live() -> Gathered:
    gather = live_gatherer()
    if gather is None:
        return Gathered(note=NO_LIVE_PROBES)
    result = gather()
    facts = list(getattr(result, "facts", result) or [])
    return Gathered(facts, list(getattr(result, "inputs", []) or []))


class Session:
    """The raw facts of one triage, the symptom, and the facts live checks added since."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = list(paths)
        self.gathered: Gathered | None = None
        self.extra: list[Fact] = []
        self.symptom: str | None = None

    @property
    def live(self) -> bool:
        return not self.paths

    def gather(self) -> Gathered:
        """Read the inputs (raises InputError when none is readable). Safe to call from a worker thread."""
        self.gathered = gather_files(self.paths) if self.paths else gather_live()
        return self.gathered

    def diagnose(self, symptom: str | None) -> Report:
        from doctor.diagnose import diagnose_facts
        self.symptom = symptom
        gathered = self.gathered or Gathered()
        report = diagnose_facts(gathered.facts + self.extra, symptom)
        report.inputs = gathered.inputs
        return report

    def add_facts(self, facts: list[Fact]) -> Report:
        """Facts from a live check join the session; the report is ranked again with the same symptom."""
        self.extra.extend(facts)
        return self.diagnose(self.symptom)
