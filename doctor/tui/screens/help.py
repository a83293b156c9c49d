"""The key bindings, read from the BINDINGS tables themselves so the help cannot drift from the code."""
from __future__ import annotations

from typing import Callable, Iterable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from doctor.tui.screens.diagnosis import DiagnosisScreen
from doctor.tui.screens.facts import FactsScreen

HOW = ("Say what you see, then read the causes best first. ⏎ on a cause jumps to the line that convicts it; "
       "tab moves between evidence, fix steps and next checks. A next check marked ▶ is answered by a live "
       "probe on this node: ⏎ or x runs it and the causes are ranked again. The mouse works everywhere.")

MOVING = (("1…8", "choose a symptom"), ("↑ ↓", "move"), ("tab", "next pane"), ("⏎", "open / run"),
          ("ctrl+p", "commands"))


def as_bindings(items: Iterable[Binding | tuple[str, ...]]) -> list[Binding]:
    return [b if isinstance(b, Binding) else Binding(*b) for b in items]


def section(title: str, rows: list[tuple[str, str]]) -> Content:
    lines = [Content.styled(title, "bold $text-accent")]
    lines += [Content.assemble((f" {key:<8}", "bold $text-primary"), what) for key, what in rows]
    return Content("\n").join(lines)


def binding_rows(bindings: list[Binding], describe: Callable[[Binding], str]) -> list[tuple[str, str]]:
    return [(describe(b), b.description) for b in bindings if b.description]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        describe = self.app.get_key_display
        with Vertical(id="help-box"):
            yield Static(HOW, id="help-how")
            with Horizontal(id="help-columns"):
                yield Static(section("Everywhere", binding_rows(as_bindings(self.app.BINDINGS), describe)))
                yield Static(Content("\n\n").join([
                    section("Diagnosis", binding_rows(as_bindings(DiagnosisScreen.BINDINGS), describe)),
                    section("Facts", binding_rows(as_bindings(FactsScreen.BINDINGS), describe))]))
                yield Static(section("Moving around", list(MOVING)))

    def on_mount(self) -> None:
        box = self.query_one("#help-box")
        box.border_title = "doctor: keys"
        box.border_subtitle = "esc closes"
