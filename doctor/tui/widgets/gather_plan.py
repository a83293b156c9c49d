"""The first screen's right side: what doctor reads (inputs, or this node) and, for the symptom, what it looks at."""
from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from doctor.tui.session import Gathered
from doctor.tui.symptoms import SymptomChoice

MAX_INPUTS = 12


def inputs_part(paths: list[str], gathered: Gathered | None, error: str) -> Content:
    if error:
        return Content.assemble(("Could not read the inputs\n", "bold $error"), error)
    if not paths:
        head = Content.styled("This node, live\n", "bold")
        if gathered is None:
            return Content.assemble(head, ("running the live probes…", "italic $text-muted"))
        return Content.assemble(head, gathered.note or f"{len(gathered.facts)} facts from the live probes")
    if gathered is None:
        return Content.assemble(("Reading\n", "bold"), ("\n".join(paths), "$text-muted"), ("\n…", "italic $text-muted"))
    read = [i for i in gathered.inputs if i.status == "ok"]
    lines = [Content.styled(f"Read {len(read)} of {len(gathered.inputs)} input(s), {len(gathered.facts)} facts", "bold")]
    for item in gathered.inputs[:MAX_INPUTS]:
        ok = item.status == "ok"
        mark = ("✓ ", "bold $success") if ok else ("✗ ", "bold $warning")
        detail = ", ".join(item.kinds) if ok else item.reason
        lines.append(Content.assemble(mark, item.path, (f"  {detail}", "$text-muted")))
    if len(gathered.inputs) > MAX_INPUTS:
        lines.append(Content.styled(f"… and {len(gathered.inputs) - MAX_INPUTS} more (p: probe panel)", "$text-muted"))
    return Content("\n").join(lines)


def symptom_part(choice: SymptomChoice) -> Content:
    looks = Content("\n").join(Content.assemble(("  • ", "$text-muted"), x) for x in choice.looks_at)
    bring = Content("\n").join(Content.assemble(("  + ", "$text-success"), x.replace("`", "")) for x in choice.bring)
    return Content.assemble((choice.label, "bold $text-accent"), (f": {choice.seen}\n\n", "$text-muted"),
                            ("Doctor looks at\n", "bold"), looks, "\n\n", ("Worth adding if you have it\n", "bold"), bring)


class GatherPlan(Widget):
    DEFAULT_CSS = "GatherPlan { height: auto; }"
    gathered: reactive[Gathered | None] = reactive(None, layout=True)
    error: reactive[str] = reactive("", layout=True)
    choice: reactive[SymptomChoice | None] = reactive(None, layout=True)

    def __init__(self, paths: list[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.paths = paths

    def render(self) -> Content:
        parts = [inputs_part(self.paths, self.gathered, self.error)]
        if self.choice is not None:
            parts.append(symptom_part(self.choice))
        return Content("\n\n").join(parts)
