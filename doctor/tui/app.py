"""The doctor TUI: symptom first, then ranked causes with their evidence; views, export, live checks in workers."""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from doctor.errors import DoctorError
from doctor.tui.checks import LIVE_CHECKS, CheckResult, LiveCheck, movement
from doctor.tui.export import export
from doctor.tui.messages import CheckRequested, SymptomChosen
from doctor.tui.screens.symptom import SymptomScreen
from doctor.tui.screens.view import ViewScreen
from doctor.tui.session import Gathered, Session
from doctor.tui.symptoms import SYMPTOM_CHOICES

if TYPE_CHECKING:       # only the first screen is imported before first paint; the rest load when first shown
    from doctor.report.model import Report
    from doctor.tui.screens.diagnosis import DiagnosisScreen

# view name -> "module:Screen"
VIEWS: dict[str, str] = {
    "topology": "doctor.tui.screens.topology:TopologyScreen",
    "memory": "doctor.tui.screens.memory:MemoryScreen",
    "ranks": "doctor.tui.screens.ranks:RanksScreen",
    "facts": "doctor.tui.screens.facts:FactsScreen",
    "probes": "doctor.tui.screens.probes:ProbesScreen",
    "hang": "doctor.tui.screens.hang:HangScreen",
}
THEMES = {"dark": "textual-dark", "light": "textual-light"}


class DoctorApp(App[int]):
    CSS_PATH = "doctor.tcss"
    TITLE = "doctor"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("s", "symptom", "Symptom"),
        Binding("t", "view('topology')", "Topology"),
        Binding("m", "view('memory')", "Memory"),
        Binding("r", "view('ranks')", "Ranks", show=False),
        Binding("f", "view('facts')", "Facts"),
        Binding("p", "view('probes')", "Probes"),
        Binding("h", "view('hang')", "Hang", show=False),
        Binding("e", "export", "Export"),
        Binding("ctrl+t", "toggle_theme", "Light/dark", show=False),
    ]

    def __init__(self, paths: list[str], symptom: str | None = None, theme: str = "dark",
                 checks: tuple[LiveCheck, ...] = LIVE_CHECKS) -> None:
        super().__init__()
        self.session = Session(paths)
        self.checks = checks
        self.report: Report | None = None
        self.ready = False
        self.chosen: tuple[str | None, str] | None = None
        if symptom is not None:
            self.chosen = (symptom, next((c.label for c in SYMPTOM_CHOICES if c.symptom == symptom), symptom))
        self.start_theme = THEMES.get(theme, theme)
        self.sub_title = " ".join(paths) if paths else "this node (live)"

    def on_mount(self) -> None:
        self.theme = self.start_theme
        self.push_screen(SymptomScreen(self.session.paths))
        self.call_after_refresh(self.gather)          # paint first, then read: the reading must not delay the screen

    # gathering and diagnosis run in threads; results come back through call_from_thread

    @work(thread=True, exclusive=True, group="gather")
    def gather(self) -> None:
        try:
            gathered = self.session.gather()
            from doctor.diagnose import rule_base
            rule_base()
            self.call_from_thread(self._gathered, gathered, "")
        except DoctorError as err:
            self.call_from_thread(self._gathered, None, str(err))
        except Exception as err:  # noqa: BLE001 - shown in the UI, never a traceback
            self.call_from_thread(self._gathered, None, f"{err.__class__.__name__}: {err}")

    def _gathered(self, gathered: Gathered | None, error: str) -> None:
        self.ready = True
        symptom_screen = self._find(SymptomScreen)
        if symptom_screen is not None:
            symptom_screen.gathered, symptom_screen.error = gathered, error
        if error:
            self.notify(error, title="could not read the inputs", severity="error", timeout=10)
        if self.chosen is not None:
            self.diagnose(*self.chosen)

    def on_symptom_chosen(self, message: SymptomChosen) -> None:
        self.chosen = (message.symptom, message.label)
        if self.ready:
            self.diagnose(message.symptom, message.label)
        else:
            self.notify("still reading the inputs: the diagnosis follows", timeout=3)

    @work(thread=True, exclusive=True, group="diagnose")
    def diagnose(self, symptom: str | None, label: str) -> None:
        report = self.session.diagnose(symptom)
        self.call_from_thread(self._diagnosed, report, label)

    def _diagnosed(self, report: Report, label: str) -> None:
        self.report = report
        screen = self._diagnosis_screen()
        if screen is not None:
            screen.symptom_label = label
            screen.report = report
            self._pop_to(screen)
        else:
            from doctor.tui.screens.diagnosis import DiagnosisScreen
            self.push_screen(DiagnosisScreen(report, label, self.checks))

    # live checks

    def on_check_requested(self, message: CheckRequested) -> None:
        if any(w.group == "check" and w.is_running for w in self.workers):
            self.notify("a check is already running", severity="warning")
            return
        screen = self._diagnosis_screen()
        check = message.item.check
        if check is None or self.report is None:
            return
        if screen is not None:
            screen.set_running(f"running {check.name}: {check.describe(self.report)}")
        self.run_check(check, message.cause)

    @work(thread=True, exclusive=True, group="check")
    def run_check(self, check: LiveCheck, cause: str) -> None:
        assert self.report is not None
        before = self.report
        try:
            result = check.run(before)
        except Exception as err:  # noqa: BLE001 - a check that breaks is reported, not raised
            result = CheckResult([], f"{check.name} failed: {err.__class__.__name__}: {err}")
        report = self.session.add_facts(result.facts) if result.facts else before
        self.call_from_thread(self._checked, result, cause, before, report)

    def _checked(self, result: CheckResult, cause: str, before: Report, after: Report) -> None:
        self.report = after
        screen = self._diagnosis_screen()
        if screen is not None:
            screen.set_running(None)
            screen.report = after
        self.notify(f"{result.summary}\n{movement(cause, before, after)}", title="check finished", timeout=8)

    # navigation

    def _find(self, kind: type[Screen]) -> Screen | None:
        return next((s for s in reversed(self.screen_stack) if isinstance(s, kind)), None)

    def _diagnosis_screen(self) -> DiagnosisScreen | None:
        from doctor.tui.screens.diagnosis import DiagnosisScreen
        return self._find(DiagnosisScreen)  # type: ignore[return-value]

    def _pop_to(self, screen: Screen) -> None:
        while self.screen is not screen and len(self.screen_stack) > 1:
            self.pop_screen()

    def action_symptom(self) -> None:
        screen = self._find(SymptomScreen)
        if screen is not None:
            self._pop_to(screen)

    def action_back(self) -> None:
        if isinstance(self.screen, ViewScreen):
            self.pop_screen()

    def action_view(self, name: str) -> None:
        report = self.report or (self.session.diagnose(None) if self.ready else None)
        if report is None:
            self.notify("still reading the inputs", severity="warning")
            return
        module, _, cls = VIEWS[name].partition(":")
        view = getattr(importlib.import_module(module), cls)(report)
        if isinstance(self.screen, ViewScreen):
            self.switch_screen(view)
        else:
            self.push_screen(view)

    def action_help(self) -> None:
        from doctor.tui.screens.help import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_toggle_theme(self) -> None:
        self.theme = THEMES["light"] if self.theme == THEMES["dark"] else THEMES["dark"]

    def action_export(self) -> None:
        if self.report is None:
            self.notify("choose a symptom first: there is no report to export yet", severity="warning")
            return
        try:
            written = export(self.report, Path.cwd())
        except OSError as err:
            self.notify(f"{err.strerror or err}: {getattr(err, 'filename', '')}", title="export failed", severity="error")
            return
        self.notify(", ".join(str(p) for p in written), title="report exported")

