"""The report as Markdown: for tickets, chat and pull requests. Plain text in, safe Markdown out.

Evidence lines are quoted in code spans (never interpreted), table cells have their pipes escaped,
and the order is the report's: best cause first.
"""
from __future__ import annotations

import re

from doctor.rank import Diagnosis, Evidence
from doctor.report.model import Report
from doctor.report.nothing_found import advice

_CODE = re.compile(r"`([^`]+)`")


def code(text: str) -> str:
    """An inline code span that survives backticks inside the text."""
    text = text.replace("\n", " ")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def plain(text: str) -> str:
    """Prose from a rule: keep its `code` spans, escape Markdown that would change the meaning elsewhere."""
    parts = _CODE.split(text)
    out = []
    for i, part in enumerate(parts):
        out.append(code(part) if i % 2 else re.sub(r"([\\*\[\]<>])", r"\\\1", part))
    return "".join(out)


def render(report: Report) -> str:
    lines = ["# doctor report", ""]
    read = [i for i in report.inputs if i.status == "ok"]
    lines.append(f"{len(read)} input(s) read, {len(report.facts)} facts"
                 + (f", symptom: {report.symptom}" if report.symptom else "") + ".")
    lines.append("")
    if report.healthy:
        lines += ["No known cause found in these inputs.", ""] + [plain(line) for line in advice(report)] + [""]
    for number, diagnosis in enumerate(report.diagnoses, 1):
        lines += _diagnosis(number, diagnosis)
    if report.diagnoses:
        lines += [f"Unexplained: **{report.unexplained:.0%}** of the probability is on no cause shown.", ""]
    lines += _unknowns(report)
    lines += _inputs(report) + _probes(report)
    return "\n".join(lines).rstrip() + "\n"


def _diagnosis(number: int, d: Diagnosis) -> list[str]:
    lines = [f"## {number}. {d.cause}: {plain(d.title)}", "",
             f"Confidence **{d.confidence:.2f}**, rules {', '.join(d.rules)}"
             + (f" (lowered by {', '.join(d.lowered_by)})" if d.lowered_by else "") + ".", ""]
    if d.evidence:
        lines += ["Evidence:", ""] + [_evidence(e) for e in d.evidence] + [""]
    lines += [f"**Fix:** {plain(d.fix_summary)}", ""]
    lines += [f"{i}. {plain(step)}" for i, step in enumerate(d.fix_steps, 1)]
    if d.fix_steps:
        lines.append("")
    if d.next_checks:
        lines += ["Check next:", ""] + [f"- {plain(check)}" for check in d.next_checks] + [""]
    return lines


def _evidence(e: Evidence) -> str:
    where = f"{e.source}:{e.line}" if e.line else e.source
    note = f" ({plain(e.note)})" if e.note else ""
    return f"- {code(where)} {code(e.text) if e.text else ''}{note}".rstrip()


def _unknowns(report: Report) -> list[str]:
    if not report.unexplained_lines:
        return []
    lines = ["## Error lines no rule explains", ""] + [_evidence(e) for e in report.unexplained_lines] + [""]
    d = report.differential
    if d is not None:
        lines += [f"Usual causes ({d.symptom}) and the check that tells them apart:", ""]
        lines += [f"- {code(c.cause)}: {plain(c.check)}" for c in d.candidates] + ["", "Upload next:", ""]
        lines += [f"- {plain(item)}" for item in d.upload] + [""]
    return lines


def _inputs(report: Report) -> list[str]:
    if not report.inputs:
        return []
    lines = ["## Inputs", "", "| path | bytes | read by | status |", "|---|---:|---|---|"]
    for i in report.inputs:
        status = i.status if not i.reason else f"{i.status}: {i.reason}"
        lines.append(f"| {cell(i.path)} | {i.size} | {cell(', '.join(i.kinds))} | {cell(status)} |")
    return lines + [""]


def _probes(report: Report) -> list[str]:
    statuses = report.probe_statuses()
    if not statuses:
        return []
    lines = ["## Probes", "", "| probe | node | status | reason |", "|---|---|---|---|"]
    for p in statuses:
        lines.append(f"| {cell(p.probe)} | {cell(p.node)} | {p.status} | {cell(p.reason)} |")
    return lines + [""]
