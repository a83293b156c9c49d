"""The whole-job report: doctor.report/1 plus a `cluster` section (ranks, nodes, phases, measurements)."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

from doctor.facts import Fact
from doctor.facts.cluster import BusBandwidth, BusbwCheck, PairBandwidth, PairReach, RankTiming
from doctor.report.model import Report


def measurements(facts: list[Fact]) -> dict[str, Any]:
    """What the active tests measured, for people and dashboards (the facts themselves feed the rules)."""
    return {
        "busbw": [{"op": f.op, "backend": f.backend, "bytes": int(f.bytes), "ranks": f.ranks, "algbw_gbs": f.algbw_gbs,
                   "busbw_gbs": f.busbw_gbs, "seconds": f.seconds}
                  for f in sorted((f for f in facts if isinstance(f, BusBandwidth)), key=lambda f: (f.op, f.bytes))],
        "busbw_check": [{"op": f.op, "measured_gbs": f.measured_gbs, "expected_gbs": f.expected_gbs, "basis": f.basis,
                         "limited_by": f.limited_by} for f in facts if isinstance(f, BusbwCheck)],
        "pairs": [{"a": f.node, "b": f.peer, "gbs": f.gbs, "round": f.round} for f in facts if isinstance(f, PairBandwidth)],
        "reach": [{"from": f.node, "to": f.peer, "outcome": f.outcome, "seconds": f.seconds}
                  for f in facts if isinstance(f, PairReach) and f.outcome != "ok"],
        "timing": [{"rank": f.rank, "node": f.node, "work_s": f.work_s, "shared": f.shared} for f in facts
                   if isinstance(f, RankTiming)],
    }


def to_json(report: Report, cluster: dict[str, Any]) -> dict[str, Any]:
    data = report.to_json()
    data["cluster"] = {**cluster, **measurements(report.facts)}
    return data


def emit(report: Report, cluster: dict[str, Any], as_json: bool, output: str, rank: int) -> None:
    """Print (or write to OUTPUT, '{rank}' replaced) the report as JSON or text."""
    target = output.replace("{rank}", str(rank)) if output else ""
    if as_json:
        text = json.dumps(to_json(report, cluster), indent=1) + "\n"
    else:
        text = render_text(report, cluster, color=not target and sys.stdout.isatty())
    if target:
        Path(target).write_text(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def render_text(report: Report, cluster: dict[str, Any], color: bool) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from doctor.report.text import render
    console = Console(record=True, force_terminal=color, width=110, highlight=False, file=io.StringIO())
    if "world_size" in cluster:
        nodes = cluster.get("nodes", [])
        console.print(Text(f"Job of {cluster['world_size']} ranks on {len(nodes)} node(s): {cluster.get('ranks', 0)} "
                           f"reported, facts over {cluster.get('transport', '?')}.", style="bold"))
        table = Table("node", "ranks", "address", box=None)
        for n in nodes:
            table.add_row(n["name"], ",".join(str(r) for r in n["ranks"][:16]), n.get("address", ""))
        console.print(table)
    else:
        console.print(Text(f"Rank {cluster.get('rank', '?')} on {cluster.get('node', '?')} could not join the job: "
                           f"{cluster.get('error', '')}", style="bold red"))
    m = measurements(report.facts)
    for b in m["busbw"]:
        console.print(f"  {b['op']:<10} {b['bytes']:>10} B  busbw {b['busbw_gbs']:.3f} GB/s ({b['backend']}, {b['ranks']} ranks)")
    for c in m["busbw_check"]:
        expected = f"expected {c['expected_gbs']:.3f} GB/s ({c['basis']})" if c["expected_gbs"] > 0 else "no expected figure"
        console.print(f"  {c['op']}: measured {c['measured_gbs']:.3f} GB/s, {expected}"
                      + (f", limited by {c['limited_by']}" if c["limited_by"] else ""))
    for p in m["pairs"]:
        console.print(f"  pair {p['a']} <-> {p['b']}: {p['gbs']:.4f} GB/s (round {p['round']})")
    console.print(render(report))
    return console.export_text(styles=color)


JOB_FACTS_SCHEMA = "doctor.job-facts/1"


def write_job_facts(target: str, facts: list[Fact], cluster: dict[str, Any]) -> None:
    """The facts rank 0 diagnosed, one per line as doctor.cluster.wire writes them (JSON, never pickle), after a
    header line naming the schema and the job: probes/job_facts.py reads the file back for `doctor analyze`."""
    from doctor.cluster.wire import fact_to_dict
    header = {"schema": JOB_FACTS_SCHEMA, "cluster": {k: v for k, v in cluster.items() if k != "facts"}}
    lines = [json.dumps(header, separators=(",", ":"), default=str)]
    lines += [json.dumps(fact_to_dict(f), separators=(",", ":"), default=str) for f in facts]
    Path(target).write_text("\n".join(lines) + "\n")
