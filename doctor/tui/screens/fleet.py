"""The fleet: nodes x causes (a heat map, most suspect node first); enter opens a node's jobs, enter again a job's
report on the diagnosis screen."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from doctor.fleet.report import FleetReport, attributions
from doctor.fleet.store import StoredJob
from doctor.tui.widgets.header import ICON

MAX_CAUSES = 12
SHADES = ("", "on #3b2f00", "on #6b4a00", "on #9c5a00", "on #c0392b")   # 0, 1, 2-3, 4-9, 10+


def shade(count: int) -> str:
    return SHADES[0 if count <= 0 else 1 if count == 1 else 2 if count <= 3 else 3 if count <= 9 else 4]


class FleetScreen(Screen[None]):
    SUB_TITLE = "fleet: nodes x causes"
    BINDINGS = [Binding("q", "app.quit", "Quit")]

    def __init__(self, report: FleetReport) -> None:
        super().__init__()
        self.report = report
        self.heat = attributions([job for job, _ in report.jobs])

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        yield Static(self._summary(), id="fleet-summary")
        yield DataTable(id="heat", cursor_type="row")
        yield Footer()

    def _summary(self) -> Content:
        suspects = self.report.suspects
        return Content.assemble((f"{len(self.report.jobs)} jobs, {len(self.report.nodes)} nodes", "bold"),
                                f"  ·  fleet failure rate {self.report.fleet_rate:.2%}  ·  suspect: ",
                                (", ".join(suspects) or "none", "bold $error" if suspects else ""),
                                ("  ·  ⏎ the node's jobs", "$text-muted"))

    def on_mount(self) -> None:
        table = self.query_one("#heat", DataTable)
        totals: dict[str, int] = {}
        for counts in self.heat.values():
            for cause, n in counts.items():
                totals[cause] = totals.get(cause, 0) + n
        causes = sorted(totals, key=lambda c: (-totals[c], c))[:MAX_CAUSES]
        table.add_column("node", key="node")
        table.add_column("jobs", key="jobs")
        table.add_column("p (Holm)", key="p")
        for cause in causes:
            table.add_column(cause, key=cause)
        for v in self.report.nodes:
            counts = self.heat.get(v.node, {})
            name = Content.styled(v.node, "bold $error") if v.suspect else Content(v.node)
            cells = [Content.styled(f"{counts.get(c, 0) or '·':>3}", shade(counts.get(c, 0))) for c in causes]
            table.add_row(name, str(v.jobs), f"{v.adjusted:.2g}", *cells, key=v.node)
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        node = str(event.row_key.value)
        jobs = [(job, d) for job, d in self.report.jobs if node in job.nodes]
        self.app.push_screen(NodeJobsScreen(node, jobs))


class NodeJobsScreen(Screen[None]):
    SUB_TITLE = "a node's jobs"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, node: str, jobs: list) -> None:
        super().__init__()
        self.node = node
        self.jobs: dict[str, StoredJob] = {job.key: job for job, _ in jobs}
        self.rows = jobs

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        yield Static(Content.assemble((self.node, "bold"), f": {len(self.rows)} jobs  ·  ⏎ the job's report  ·  "
                                      "esc back"), id="node-summary")
        yield DataTable(id="node-jobs", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#node-jobs", DataTable)
        for name in ("job", "leading cause", "names this node", "decision", "reason"):
            table.add_column(name, key=name)
        for job, decision in reversed(self.rows):
            top = job.diagnoses[0] if job.diagnoses else None
            named = any(self.node in d.get("nodes", []) for d in job.diagnoses)
            table.add_row(job.job, top["cause"] if top else "", "yes" if named else "", decision.action,
                          decision.reason, key=job.key)
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from doctor.tui.fleet_app import job_report
        from doctor.tui.screens.diagnosis import DiagnosisScreen
        job = self.jobs[str(event.row_key.value)]
        self.app.push_screen(DiagnosisScreen(job_report(job), f"job {job.job}", checks=()))
