"""Per-rank step bars from trace facts; says so plainly when there are none."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header

from doctor.tui.screens.view import ViewScreen
from doctor.tui.widgets.header import ICON
from doctor.tui.widgets.rank_bars import RankBars


class RanksScreen(ViewScreen):
    SUB_TITLE = "time per rank"

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        with VerticalScroll(id="view-body"):
            yield RankBars(self.report.facts)
        yield Footer()
