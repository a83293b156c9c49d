"""First screen: what do you see? Shows what doctor reads, and what it looks at for that symptom."""
from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList
from textual.widgets.option_list import Option

from doctor.tui.messages import SymptomChosen
from doctor.tui.session import Gathered
from doctor.tui.symptoms import SYMPTOM_CHOICES, SymptomChoice
from doctor.tui.widgets.gather_plan import GatherPlan
from doctor.tui.widgets.header import ICON


SEEN_WIDTH = 40          # #symptoms is 50 cells wide


def symptom_prompt(number: int, choice: SymptomChoice) -> Content:
    seen = "\n".join("   " + line for line in textwrap.wrap(choice.seen, SEEN_WIDTH))
    return Content.assemble((f" {number} ", "bold $text-accent"), (choice.label, "bold"), "\n", (seen, "$text-muted"))


class SymptomScreen(Screen[None]):
    SUB_TITLE = "what do you see?"
    BINDINGS = [Binding(str(i), f"choose({i - 1})", show=False) for i in range(1, len(SYMPTOM_CHOICES) + 1)]

    gathered: reactive[Gathered | None] = reactive(None)
    error: reactive[str] = reactive("")

    def __init__(self, paths: list[str]) -> None:
        super().__init__()
        self.paths = paths

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        with Horizontal(id="symptom-body"):
            options = [Option(symptom_prompt(i, c), id=f"symptom-{i}") for i, c in enumerate(SYMPTOM_CHOICES, 1)]
            yield OptionList(*options, id="symptoms")
            with VerticalScroll(id="plan-box"):
                yield GatherPlan(self.paths, id="plan")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#symptoms").border_title = "What do you see?"
        self.query_one("#plan-box").border_title = "What doctor will read"
        symptoms = self.query_one("#symptoms", OptionList)
        symptoms.highlighted = 0
        symptoms.focus()

    def watch_gathered(self, gathered: Gathered | None) -> None:
        self.query_one(GatherPlan).gathered = gathered

    def watch_error(self, error: str) -> None:
        self.query_one(GatherPlan).error = error

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one(GatherPlan).choice = SYMPTOM_CHOICES[event.option_index]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(event.option_index)

    def action_choose(self, index: int) -> None:
        choice = SYMPTOM_CHOICES[index]
        self.query_one("#symptoms", OptionList).highlighted = index
        self.post_message(SymptomChosen(choice.symptom, choice.label))
