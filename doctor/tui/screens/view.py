"""Base of the views opened from the diagnosis (topology, memory, ranks, facts, probes): escape goes back."""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.screen import Screen

if TYPE_CHECKING:
    from doctor.report.model import Report


class ViewScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.back", "Back")]

    def __init__(self, report: Report) -> None:
        super().__init__()
        self.report = report
