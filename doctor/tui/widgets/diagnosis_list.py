"""The ranked causes: one option per diagnosis, a score bar, the cause id and its title."""
from __future__ import annotations

import textwrap

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from doctor.rank import Diagnosis
from doctor.tui.messages import CauseHighlighted, CauseOpened
from doctor.tui.widgets.score_bar import score_bar


TITLE_WIDTH = 38          # #causes is 48 cells wide: border, padding, indent and scrollbar take the rest


def cause_prompt(rank: int, d: Diagnosis) -> Content:
    lowered = Content.styled("  lowered", "italic $text-muted") if d.lowered_by else Content("")
    title = "\n".join("   " + line for line in textwrap.wrap(d.title, TITLE_WIDTH) or [""])
    return Content.assemble(
        (f"{rank:>2} ", "$text-muted"), score_bar(d.confidence), (f" {d.confidence:.2f} ", "bold"),
        (d.cause, "bold $text-accent"), lowered, "\n", title)


class DiagnosisList(OptionList):
    """Owns the ranked list; posts CauseHighlighted / CauseOpened."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diagnoses: list[Diagnosis] = []

    def show(self, diagnoses: list[Diagnosis], keep: str | None = None) -> None:
        """Replace the list; the cursor stays on the cause `keep` when it is still there."""
        self.diagnoses = list(diagnoses)
        self.set_options([Option(cause_prompt(i, d), id=d.cause) for i, d in enumerate(self.diagnoses, 1)])
        if self.diagnoses:
            self.highlighted = next((i for i, d in enumerate(self.diagnoses) if d.cause == keep), 0)

    @property
    def current(self) -> Diagnosis | None:
        index = self.highlighted
        return self.diagnoses[index] if index is not None and index < len(self.diagnoses) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index < len(self.diagnoses):
            self.post_message(CauseHighlighted(self.diagnoses[event.option_index]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.diagnoses):
            self.post_message(CauseOpened(self.diagnoses[event.option_index]))
