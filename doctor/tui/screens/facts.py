"""Every fact with its origin; the input filters by kind or text as you type."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Header, Input, Static

from doctor.tui.screens.view import ViewScreen
from doctor.tui.widgets.fact_table import FactTable
from doctor.tui.widgets.header import ICON


class FactsScreen(ViewScreen):
    SUB_TITLE = "facts"
    BINDINGS = [Binding("slash", "focus_filter", "Filter"), Binding("escape", "leave", "Back")]

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        yield Input(placeholder="filter: words that must all occur (kind, field=value, file, text), e.g. nccl. shm",
                    id="fact-filter")
        yield Static(id="fact-count")
        yield FactTable(self.report.facts, id="facts")
        yield Footer()

    def on_mount(self) -> None:
        self._count(len(self.report.facts))
        self.query_one(FactTable).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._count(self.query_one(FactTable).show_matching(event.value))

    def _count(self, shown: int) -> None:
        self.query_one("#fact-count", Static).update(f"{shown} of {len(self.report.facts)} facts  ·  / filter  ·  esc back")

    def action_focus_filter(self) -> None:
        self.query_one(Input).focus()

    def action_leave(self) -> None:
        if self.query_one(Input).has_focus:
            self.query_one(FactTable).focus()
        else:
            self.app.action_back()
