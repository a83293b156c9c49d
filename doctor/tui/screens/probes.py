"""The probe panel: which probe read what (Ok / Skipped / Failed, with reasons) and every input file."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer, Header, Label

from doctor.tui.screens.view import ViewScreen
from doctor.tui.widgets.header import ICON
from doctor.tui.widgets.probe_table import InputTable, ProbeTable


class ProbesScreen(ViewScreen):
    SUB_TITLE = "probes and inputs"

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        yield Label("Probes", classes="section")
        yield ProbeTable(self.report, id="probe-table")
        yield Label("Inputs", classes="section")
        yield InputTable(self.report, id="input-table")
        yield Footer()
