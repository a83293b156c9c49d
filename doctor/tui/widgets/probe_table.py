"""What was read and by which probe: Ok / Skipped / Failed with the reason, and every input file."""
from __future__ import annotations

from collections import Counter

from textual.content import Content
from textual.widgets import DataTable

from doctor.facts.status import ProbeStatus
from doctor.report.model import Report
from doctor.tui.widgets.table_util import add_sized_columns

STATUS_STYLES = {"ok": ("Ok", "bold $success"), "skipped": ("Skipped", "bold $warning"), "failed": ("Failed", "bold $error")}


def status_cell(status: str) -> Content:
    label, style = STATUS_STYLES.get(status, (status, ""))
    return Content.styled(label, style)


def probe_rows(report: Report) -> list[tuple[str, str, str, str]]:
    """(probe, status, node, reason): probes that produced facts are Ok; probe.status facts say the rest."""
    counts = Counter(f.origin.probe for f in report.facts if f.origin.probe and not isinstance(f, ProbeStatus))
    rows = [(probe, "ok", "", f"{n} fact{'s' if n > 1 else ''}") for probe, n in sorted(counts.items())]
    rows += [(p.probe, p.status, p.node, p.reason) for p in report.probe_statuses()]
    return rows


class ProbeTable(DataTable):
    def __init__(self, report: Report, *, id: str | None = None) -> None:
        super().__init__(id=id, zebra_stripes=True, cursor_type="row")
        self.report = report

    def on_mount(self) -> None:
        rows = [(Content.styled(probe, "bold"), status_cell(status), node, reason)
                for probe, status, node, reason in probe_rows(self.report)]
        add_sized_columns(self, ("probe", "status", "node", "reason"), rows, (24, 8, 20, 100))
        for r in rows:
            self.add_row(*r)


class InputTable(DataTable):
    def __init__(self, report: Report, *, id: str | None = None) -> None:
        super().__init__(id=id, zebra_stripes=True, cursor_type="row")
        self.report = report

    def on_mount(self) -> None:
        rows = [(item.path, f"{item.size:,}", ", ".join(item.kinds), input_status(item.status, item.reason))
                for item in self.report.inputs]
        add_sized_columns(self, ("input", "bytes", "read by", "status"), rows, (60, 14, 40, 80))
        for r in rows:
            self.add_row(*r)


def input_status(status: str, reason: str) -> Content:
    cell = status_cell(status)
    return Content.assemble(cell, f": {reason}") if reason else cell
