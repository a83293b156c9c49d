"""The report for people: rich renderables (cause, score, quoted evidence with file:line, fix, next checks)."""
from __future__ import annotations

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.text import Text

from doctor.printable import printable
from doctor.rank import Diagnosis
from doctor.report.model import Report
from doctor.report.nothing_found import advice

MAX_SHOWN = 5


def score_bar(confidence: float, width: int = 10) -> Text:
    filled = round(confidence * width)
    style = "red" if confidence >= 0.7 else "yellow" if confidence >= 0.4 else "cyan"
    return Text("█" * filled, style=style) + Text("░" * (width - filled), style="grey50")


def evidence_lines(d: Diagnosis) -> list[RenderableType]:
    """file:line on one line, the quoted text under it, the rule's reading of it in grey."""
    out: list[RenderableType] = []
    for e in d.evidence:
        where = f"{e.source}:{e.line}" if e.line else e.source
        out.append(Text("  ") + Text(printable(where), style="bold cyan"))
        if e.text:
            out.append(Padding(Text(printable(e.text), style="italic"), (0, 0, 0, 4)))
        if e.note:
            out.append(Padding(Text("↳ " + printable(e.note), style="grey50"), (0, 0, 0, 4)))
    return out


def diagnosis_panel(rank: int, d: Diagnosis) -> Panel:
    parts: list[RenderableType] = [Text(d.title, style="bold"), Text("Evidence", style="bold")]
    parts.extend(evidence_lines(d))
    parts.append(Text("Fix: ", style="bold green") + Text(d.fix_summary))
    for i, step in enumerate(d.fix_steps, 1):
        parts.append(Padding(Text(f"{i}. ") + Text(step), (0, 0, 0, 2)))
    if d.next_checks:
        parts.append(Text("Check next", style="bold"))
        for check in d.next_checks:
            parts.append(Padding(Text("• ") + Text(check), (0, 0, 0, 2)))
    parts.append(Text(f"rules: {', '.join(d.rules)}", style="grey50"))
    heading = Text(f"#{rank} ") + score_bar(d.confidence) + Text(f" {d.confidence:.2f}  ") + \
        Text(d.cause, style="bold magenta")
    return Panel(Group(*parts), title=heading, title_align="left", border_style="magenta" if rank == 1 else "grey50")


def render(report: Report) -> RenderableType:
    parts: list[RenderableType] = []
    read = [i for i in report.inputs if i.status == "ok"]
    skipped = [i for i in report.inputs if i.status != "ok"]
    parts.append(Text(f"Read {len(read)} input(s), {len(report.facts)} facts.", style="grey50"))
    for item in skipped:
        parts.append(Text(printable(f"skipped {item.path}: {item.reason}"), style="yellow"))
    if report.healthy:
        parts.append(Text("No known cause found in these inputs.", style="bold green"))
        parts.extend(Text(printable(line), style="grey50") for line in advice(report))
        stop = next((f for f in report.facts if f.KIND == "nccl.init_unfinished"), None)
        if stop is not None:
            parts.append(Text(printable(f"NCCL's output stops inside communicator init at {stop.origin.source}:"
                                        f"{stop.origin.line}. If the job hangs there, run again with --symptom hang "
                                        "for the usual causes and the check that tells each apart."), style="yellow"))
    for i, d in enumerate(report.diagnoses[:MAX_SHOWN], 1):
        parts.append(diagnosis_panel(i, d))
    if len(report.diagnoses) > MAX_SHOWN:
        rest = ", ".join(escape(d.cause) for d in report.diagnoses[MAX_SHOWN:])
        parts.append(Text(f"Also considered: {rest}", style="grey50"))
    if report.diagnoses:
        parts.append(unexplained_line(report))
    if report.unexplained_lines:
        parts.append(unknowns_panel(report))
    return Group(*parts)


def unexplained_line(report: Report) -> Text:
    return Text(f"Unexplained: {report.unexplained:.0%}", style="bold") + Text(
        " of the probability is on no cause shown (a cause no rule knows, or evidence not uploaded).", style="grey50")


def unknowns_panel(report: Report) -> Panel:
    """The honest unknown: error lines no rule explains, the symptom's usual causes with their checks, what to upload."""
    parts: list[RenderableType] = [Text("Error lines no rule explains", style="bold")]
    for e in report.unexplained_lines:
        parts.append(Text("  ") + Text(f"{e.source}:{e.line}", style="bold cyan"))
        parts.append(Padding(Text(e.text, style="italic"), (0, 0, 0, 4)))
    d = report.differential
    if d is not None:
        label = d.symptom.replace("_", " ") if d.symptom != "unknown" else "this kind of failure"
        parts.append(Text(f"Usual causes of {label}, and the check that tells them apart", style="bold"))
        for c in d.candidates:
            parts.append(Padding(Text("• ") + Text(c.cause, style="magenta") + Text(": " + c.check), (0, 0, 0, 2)))
        parts.append(Text("Upload next", style="bold"))
        for item in d.upload:
            parts.append(Padding(Text("• ") + Text(item), (0, 0, 0, 2)))
    title = "Not explained" if any(d.rules for d in report.diagnoses) else "No rule explains these errors"
    return Panel(Group(*parts), title=Text(title, style="bold yellow"), title_align="left", border_style="yellow")
