"""Each CUDA out-of-memory event as a stacked bar of the GPU's memory."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from doctor.facts.gpu import OomEvent
from doctor.tui.screens.view import ViewScreen
from doctor.tui.widgets.header import ICON
from doctor.tui.widgets.memory_bars import MemoryBars

NO_OOM = "no oom.event facts: no CUDA out-of-memory message in these inputs"


class MemoryScreen(ViewScreen):
    SUB_TITLE = "GPU memory at the OOM"

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        events = [f for f in self.report.facts if isinstance(f, OomEvent)]
        with VerticalScroll(id="view-body"):
            if not events:
                yield Static(NO_OOM, classes="empty")
            for oom in events:
                yield MemoryBars(oom, classes="memory")
        yield Footer()
