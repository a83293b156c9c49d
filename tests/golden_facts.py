"""Golden facts: a fixture read through the whole offline path (every probe + aggregation) -> the facts of
chosen kinds, with the evidence line each came from. test_node_probe_fixtures.py compares them exactly.

Write or refresh a golden file (then read it before committing: it is the expected answer):
    python -m tests.golden_facts fixtures/probes/topo/x.txt topo.link,topo.nic
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from doctor.aggregate import aggregate
from doctor.facts import Fact
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES

REPO = Path(__file__).resolve().parents[1]


def canonical(fact: Fact) -> dict[str, Any]:
    data = fact.as_dict()
    data.pop("node")
    if data.get("rank") == -1:
        data.pop("rank")
    data["line"] = fact.origin.line
    return data


def facts_of(fixture: Path, kinds: list[str]) -> list[dict[str, Any]]:
    facts = aggregate(gather_files([str(fixture)], LINE_PROBES, DOCUMENT_PROBES).facts)
    chosen = [canonical(f) for f in facts if f.KIND in kinds]
    return sorted(chosen, key=lambda d: (d["kind"], d["line"], json.dumps(d, sort_keys=True)))


def golden_path(fixture: Path) -> Path:
    return fixture.with_name(fixture.name + ".facts.yaml")


def write(fixture: Path, kinds: list[str]) -> Path:
    data = {"fixture": fixture.name, "kinds": kinds, "facts": facts_of(fixture, kinds)}
    path = golden_path(fixture)
    header = f"# Golden facts of {fixture.name}: every fact of these kinds the offline path reads from it, exactly.\n"
    path.write_text(header + yaml.safe_dump(data, default_flow_style=None, sort_keys=False, width=200), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write(REPO / sys.argv[1], sys.argv[2].split(",")))
