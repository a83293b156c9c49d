"""One cause in full: evidence lines (file:line, highlighted), fix steps, rules that fired, what to check next."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from doctor.rank import Diagnosis, Evidence
from doctor.tui.checks import NextItem
from doctor.tui.messages import CheckRequested
from doctor.tui.widgets.highlight import code_spans, highlight_line
from doctor.tui.widgets.score_bar import score_bar


def evidence_prompt(e: Evidence) -> Content:
    where = f"{e.source}:{e.line}" if e.line else e.source
    parts: list[Content | tuple[str, str] | str] = [(where, "bold $text-primary"), "\n", highlight_line(e.text or "")]
    if e.note:
        parts += ["\n", (f"↳ {e.note}", "italic $text-muted")]
    return Content.assemble(*parts)


def next_prompt(item: NextItem) -> Content:
    if item.check is None:
        return Content.assemble(("• ", "$text-muted"), item.text)
    return Content.assemble(("▶ ", "bold $success"), item.text, ("  live check: ⏎ or x runs it", "italic $text-success"))


class CauseView(VerticalScroll):
    """Shows one diagnosis; posts CheckRequested when a live-answerable next check is chosen."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diagnosis: Diagnosis | None = None
        self.items: list[NextItem] = []

    def compose(self) -> ComposeResult:
        yield Static(id="cause-heading")
        yield Label("Evidence", classes="section")
        yield OptionList(id="evidence")
        yield Label("Fix", classes="section")
        yield Static(id="fix-summary")
        yield OptionList(id="fix-steps")
        yield Label("Rules that fired", classes="section")
        yield Static(id="rules")
        yield Label("What to check next", classes="section")
        yield OptionList(id="next-checks")
        with Horizontal(id="check-progress"):
            yield ProgressBar(total=None, show_eta=False, show_percentage=False)
            yield Label(id="check-label")

    def show(self, d: Diagnosis | None, items: list[NextItem], rule_names: dict[str, str]) -> None:
        self.diagnosis, self.items = d, items
        if d is None:
            self.query_one("#cause-heading", Static).update("No cause selected.")
            return
        heading = Content.assemble((d.cause, "bold $text-accent"), "  ", score_bar(d.confidence, 20),
                                   (f" {d.confidence:.2f}", "bold"), "\n", (d.title, "bold"))
        if d.lowered_by:
            heading = Content.assemble(heading, ("\nlowered by " + ", ".join(d.lowered_by), "italic $text-warning"))
        self.query_one("#cause-heading", Static).update(heading)
        evidence = [Option(evidence_prompt(e)) for e in d.evidence] or [Option("(no line quoted)", disabled=True)]
        self._fill("#evidence", evidence)
        self.query_one("#fix-summary", Static).update(code_spans(d.fix_summary))
        steps = [Option(Content.assemble((f"{i}. ", "bold"), code_spans(s))) for i, s in enumerate(d.fix_steps, 1)]
        self._fill("#fix-steps", steps or [Option("(no steps)", disabled=True)])
        rules = Content("\n").join(Content.assemble((r, "bold"), ("  " + rule_names.get(r, ""), "$text-muted"))
                                   for r in d.rules)
        self.query_one("#rules", Static).update(rules)
        nexts = [Option(next_prompt(item)) for item in items] or [Option("(nothing more to check)", disabled=True)]
        self._fill("#next-checks", nexts)

    def _fill(self, selector: str, options: list[Option]) -> None:
        widget = self.query_one(selector, OptionList)
        widget.set_options(options)
        widget.highlighted = 0 if options and not options[0].disabled else None

    def selected_step(self) -> str | None:
        """The highlighted fix step, or the first one."""
        if self.diagnosis is None or not self.diagnosis.fix_steps:
            return None
        index = self.query_one("#fix-steps", OptionList).highlighted or 0
        return self.diagnosis.fix_steps[min(index, len(self.diagnosis.fix_steps) - 1)]

    def selected_evidence(self) -> Evidence | None:
        if self.diagnosis is None or not self.diagnosis.evidence:
            return None
        index = self.query_one("#evidence", OptionList).highlighted or 0
        return self.diagnosis.evidence[min(index, len(self.diagnosis.evidence) - 1)]

    def focus_evidence(self) -> None:
        evidence = self.query_one("#evidence", OptionList)
        evidence.focus()
        self.scroll_to_widget(evidence, top=True)

    def live_item(self) -> NextItem | None:
        """The highlighted next check when a live probe answers it, else the first one that does."""
        index = self.query_one("#next-checks", OptionList).highlighted
        if index is not None and index < len(self.items) and self.items[index].check:
            return self.items[index]
        return next((item for item in self.items if item.check), None)

    def set_running(self, label: str | None) -> None:
        """Show (label) or hide (None) the progress row of a running check."""
        self.query_one("#check-label", Label).update(label or "")
        self.set_class(label is not None, "-running")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "next-checks" or self.diagnosis is None:
            return
        event.stop()
        if event.option_index < len(self.items) and self.items[event.option_index].check:
            self.post_message(CheckRequested(self.items[event.option_index], self.diagnosis.cause))
