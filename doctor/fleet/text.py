"""The fleet report for a terminal (rich): causes over time, nodes judged, the exclude list, decisions."""
from __future__ import annotations

from collections import Counter

from rich.console import Group
from rich.table import Table
from rich.text import Text

from doctor.fleet.report import TEST, FleetReport, slurm_exclude

SHOWN_NODES = 20
SHOWN_JOBS = 30
SHOWN_CAUSES = 8


def render(report: FleetReport) -> Group:
    parts: list = [_causes(report), _nodes(report)]
    exclude = slurm_exclude(report)
    parts.append(Text.assemble(("exclude / drain: ", "bold"), exclude or "(none)"))
    parts.append(_decisions(report))
    return Group(*parts)


def _causes(report: FleetReport) -> Table:
    total: Counter[str] = Counter()
    for day in report.by_day.values():
        total.update(day)
    causes = [c for c, _ in total.most_common(SHOWN_CAUSES)]
    table = Table(title="leading cause per day", title_justify="left")
    table.add_column("day")
    for cause in causes:
        table.add_column(cause, justify="right")
    for day, counts in report.by_day.items():
        table.add_row(day, *[str(counts.get(c, "")) for c in causes])
    return table


def _nodes(report: FleetReport) -> Table:
    table = Table(title=f"nodes, most suspect first (fleet failure rate {report.fleet_rate:.2%}; {TEST}, "
                        f"alpha {report.alpha})", title_justify="left")
    for name, justify in (("node", "left"), ("jobs", "right"), ("failures", "right"), ("expected", "right"), ("p", "right"),
                          ("p (Holm)", "right"), ("suspect", "left"), ("first failure", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for v in report.nodes[:SHOWN_NODES]:
        first = report.failures.get(v.node, [{}])[0]
        table.add_row(v.node, str(v.jobs), str(v.failures), f"{v.expected:.1f}", f"{v.p_value:.2g}", f"{v.adjusted:.2g}",
                      Text("SUSPECT", "bold red") if v.suspect else "",
                      f"{first.get('job', '')} {first.get('cause', '')}".strip())
    return table


def _decisions(report: FleetReport) -> Table:
    counts = Counter(d.action for _, d in report.jobs)
    table = Table(title="decisions: " + ", ".join(f"{a} {n}" for a, n in sorted(counts.items())),
                  title_justify="left")
    for name in ("job", "leading cause", "decision", "reason"):
        table.add_column(name)
    for job, decision in report.jobs[-SHOWN_JOBS:]:
        cause = job.diagnoses[0]["cause"] if job.diagnoses else ""
        action = decision.action + (f" {','.join(decision.exclude)}" if decision.exclude else "")
        table.add_row(job.job, cause, action, decision.reason)
    return table
