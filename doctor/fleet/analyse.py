"""One job's analysis: the same diagnosis as `doctor analyze`, plus which nodes and ranks each diagnosis points at.

The result is a plain JSON-able dict so it crosses a process pool or a Ray task unchanged, and the driver
alone writes it to the store. A diagnosis is attributed to the nodes and ranks of the facts whose source
line is among its evidence lines.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Collection

from doctor import __version__
from doctor.errors import DoctorError
from doctor.facts import Fact
from doctor.fleet.upload import Upload, read_upload

MAX_EVIDENCE = 5
# node labels that name a file of the upload rather than a host (files without a host in their lines)
NOT_HOSTS = frozenset({"command", "env", "input", "stdin", "manifest", "doctor-job", "doctor-manifest"})


def analyse_job(path: str, known: Collection[str] = ()) -> dict[str, Any]:
    """{"ok": True, "job": {...}}, {"ok": True, "known": key} when the upload is already stored,
    or {"ok": False, "path", "error": one line}. Never raises."""
    try:
        upload = read_upload(path)
        if upload.key in known:
            return {"ok": True, "known": upload.key, "path": path}
        return {"ok": True, "job": _analyse(path, upload)}
    except DoctorError as err:
        return {"ok": False, "path": path, "error": _one_line(str(err))}
    except Exception as err:  # noqa: BLE001 - one bad upload must not end an ingest of thousands
        return {"ok": False, "path": path, "error": _one_line(f"{err.__class__.__name__}: {err}")}


def _analyse(path: str, upload: Upload) -> dict[str, Any]:
    from doctor.diagnose import diagnose_files
    report = diagnose_files([path])
    where = _fact_places(report.facts, upload.file_hosts)
    diagnoses = [_diagnosis(d, where) for d in report.diagnoses]
    nodes = set(upload.nodes) | set(upload.file_hosts.values()) | {f.node for f in report.facts if _is_host(f.node)}
    for d in diagnoses:
        nodes.update(d["nodes"])
    return {"key": upload.key, "job": upload.job, "path": path, "started": upload.started, "ended": upload.ended,
            "nodes": sorted(nodes), "diagnoses": diagnoses, "version": __version__}


def _fact_places(facts: list[Fact], file_hosts: dict[str, str]) -> dict[tuple[str, int], tuple[set[str], set[int]]]:
    """(source, line) -> the nodes and ranks of the facts read there; a fact without a node takes the one host
    its file's content names (doctor/fleet/upload.py), if any."""
    where: dict[tuple[str, int], tuple[set[str], set[int]]] = defaultdict(lambda: (set(), set()))
    for f in facts:
        origin = f.origin
        if not origin.source:
            continue
        nodes, ranks = where[(origin.source, origin.line)]
        node = f.node if _is_host(f.node) else file_hosts.get(origin.source, "")
        if node:
            nodes.add(node)
        if f.rank >= 0:
            ranks.add(f.rank)
    return where


def _diagnosis(d: Any, where: dict[tuple[str, int], tuple[set[str], set[int]]]) -> dict[str, Any]:
    nodes: set[str] = set()
    ranks: set[int] = set()
    for e in d.evidence:
        place = where.get((e.source, e.line))
        if place:
            nodes |= place[0]
            ranks |= place[1]
    return {"cause": d.cause, "title": d.title, "confidence": d.confidence, "rules": list(d.rules),
            "nodes": sorted(nodes), "ranks": sorted(ranks),
            "evidence": [{"source": e.source, "line": e.line, "text": e.text} for e in d.evidence[:MAX_EVIDENCE]],
            "fix": d.fix_summary, "steps": list(d.fix_steps), "next": list(d.next_checks)}


def _is_host(node: str) -> bool:
    return bool(node) and node not in NOT_HOSTS


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return "".join(ch if ch.isprintable() else "?" for ch in flat)[:300]
