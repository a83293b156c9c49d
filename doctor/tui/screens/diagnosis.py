"""The ranked causes and, for the selected one, its evidence, fix, rules and next checks."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from doctor.rank import Diagnosis
from doctor.report.model import Report
from doctor.report.nothing_found import missing_artifacts
from doctor.tui.checks import LIVE_CHECKS, LiveCheck, next_items
from doctor.tui.messages import CauseHighlighted, CauseOpened, CheckRequested
from doctor.tui.widgets.cause_view import CauseView
from doctor.tui.widgets.diagnosis_list import DiagnosisList
from doctor.tui.widgets.header import ICON
from doctor.tui.widgets.highlight import first_command

def nothing_found(report: Report) -> str:
    """The heading when no cause is found: why, what was not uploaded, and the TUI's own way to name a symptom."""
    missing = missing_artifacts(report)
    upload = f"Not uploaded yet: {'; '.join(missing)}. " if missing else ""
    guesses = ", ".join(f"{d.cause} {d.confidence:.0%}" for d in report.if_failed)
    likeliest = f"If the job failed anyway, the likeliest for inputs like these: {guesses}. " if guesses else ""
    return ("No known cause found in these inputs.\n\nNothing in them shows a failure: no error line, no figure below "
            f"an expectation. {likeliest}{upload}Or press s to choose the symptom you saw.")


def rule_names() -> dict[str, str]:
    from doctor.diagnose import rule_base
    return {rule.id: rule.name for rule in rule_base()[0]}


def summary(report: Report, symptom_label: str) -> Content:
    read = sum(1 for i in report.inputs if i.status == "ok")
    count = len(report.diagnoses)
    return Content.assemble(
        (f"{count} cause{'s' if count != 1 else ''}", "bold"), f" ranked for ", (symptom_label, "bold $text-accent"),
        ("  ·  ", "$text-muted"), f"unexplained {report.unexplained:.0%}",
        ("  ·  ", "$text-muted"), f"{read} input{'s' if read != 1 else ''}, {len(report.facts)} facts",
        ("  ·  ⏎ evidence  tab next pane  c copy command  x run check", "$text-muted"))


def unknowns(report: Report) -> str:
    """The honest unknown as plain text: the error lines no rule explains, the usual causes and what to upload."""
    lines = ["No rule explains these error lines:", ""]
    lines += [f"{e.source}:{e.line}\n    {e.text}" for e in report.unexplained_lines]
    d = report.differential
    if d is not None:
        lines += ["", f"Usual causes ({d.symptom}) and the check that tells them apart:"]
        lines += [f"  • {c.cause}: {c.check}" for c in d.candidates]
        lines += ["", "Upload next:"] + [f"  • {item}" for item in d.upload]
    return "\n".join(lines)


class DiagnosisScreen(Screen[None]):
    SUB_TITLE = "diagnosis"
    BINDINGS = [
        Binding("c", "copy_command", "Copy cmd"),
        Binding("C", "copy_step", "Copy step", show=False),
        Binding("y", "copy_evidence", "Copy line", show=False),
        Binding("x", "run_check", "Run check"),
        Binding("escape", "back", "Back", show=False),
    ]

    report: reactive[Report | None] = reactive(None, init=False)

    def __init__(self, report: Report, symptom_label: str, checks: tuple[LiveCheck, ...] = LIVE_CHECKS) -> None:
        super().__init__()
        self.symptom_label = symptom_label
        self.checks = checks
        self.names = rule_names()
        self.set_reactive(DiagnosisScreen.report, report)

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        yield Static(id="summary")
        with Horizontal(id="diagnosis-body"):
            yield DiagnosisList(id="causes")
            yield CauseView(id="cause")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#causes").border_title = "Ranked causes"
        self.query_one("#cause").border_title = "Evidence · fix · next"
        self.watch_report(self.report)
        self.query_one(DiagnosisList).focus()

    def watch_report(self, report: Report | None) -> None:
        if report is None:
            return
        self.query_one("#summary", Static).update(summary(report, self.symptom_label))
        causes = self.query_one(DiagnosisList)
        keep = causes.current.cause if causes.current else None
        causes.show(report.diagnoses, keep)
        if not report.diagnoses:
            view = self.query_one(CauseView)
            view.show(None, [], self.names)
            heading = Content(unknowns(report)) if report.unexplained_lines else nothing_found(report)
            view.query_one("#cause-heading", Static).update(heading)
        else:
            self._show(causes.current)

    def _show(self, diagnosis: Diagnosis | None) -> None:
        if self.report is not None and diagnosis is not None:
            self.query_one(CauseView).show(diagnosis, next_items(diagnosis, self.report, self.checks), self.names)

    def on_cause_highlighted(self, message: CauseHighlighted) -> None:
        self._show(message.diagnosis)

    def on_cause_opened(self, message: CauseOpened) -> None:
        self._show(message.diagnosis)
        self.query_one(CauseView).focus_evidence()

    def action_copy_command(self) -> None:
        step = self.query_one(CauseView).selected_step()
        self._copy(first_command(step) if step else None, "command")

    def action_copy_step(self) -> None:
        step = self.query_one(CauseView).selected_step()
        self._copy(step.replace("`", "") if step else None, "fix step")

    def action_copy_evidence(self) -> None:
        e = self.query_one(CauseView).selected_evidence()
        self._copy(f"{e.source}:{e.line}: {e.text}" if e else None, "evidence line")

    def _copy(self, text: str | None, what: str) -> None:
        if not text:
            self.notify(f"no {what} to copy", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(text, title=f"copied the {what}")

    def action_run_check(self) -> None:
        view = self.query_one(CauseView)
        item = view.live_item()
        if item is None or view.diagnosis is None:
            self.notify("no live check answers this cause's next steps", severity="warning")
            return
        self.post_message(CheckRequested(item, view.diagnosis.cause))

    def action_back(self) -> None:
        causes = self.query_one(DiagnosisList)
        if not causes.has_focus:
            causes.focus()
        else:
            self.app.action_symptom()

    def set_running(self, label: str | None) -> None:
        self.query_one(CauseView).set_running(label)
