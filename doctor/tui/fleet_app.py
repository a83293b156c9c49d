"""`doctor fleet tui` / `doctor tui --fleet DB`: the fleet screen over a fleet database, drilling into one
job's stored report on the same diagnosis screen as `doctor tui`."""
from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from doctor.fleet.store import StoredJob
from doctor.rank import Diagnosis, Evidence
from doctor.report.model import Report


def job_report(job: StoredJob) -> Report:
    """A Report rebuilt from what the store kept of the job's diagnoses."""
    diagnoses = [Diagnosis(cause=d["cause"], title=d["title"], confidence=d["confidence"], rules=list(d["rules"]),
                           evidence=[Evidence(e["source"], e["line"], e["text"]) for e in d["evidence"]],
                           fix_summary=d.get("fix", ""), fix_steps=list(d.get("steps", [])),
                           next_checks=list(d.get("next", [])))
                 for d in job.diagnoses]
    return Report(diagnoses=diagnoses)


class FleetApp(App[int]):
    CSS_PATH = "doctor.tcss"
    TITLE = "doctor fleet"
    BINDINGS = [Binding("q", "quit", "Quit")]

    def __init__(self, db: str, since: float | None = None) -> None:
        super().__init__()
        self.db = db
        self.since = since
        self.sub_title = db

    def on_mount(self) -> None:
        from doctor.fleet.report import build
        from doctor.fleet.store import FleetStore
        from doctor.tui.screens.fleet import FleetScreen
        with FleetStore(self.db) as store:
            report = build(store.jobs(self.since))
        self.push_screen(FleetScreen(report))

    def action_symptom(self) -> None:
        """The diagnosis screen's way back (escape twice): here, back to the node's jobs."""
        self.pop_screen()
