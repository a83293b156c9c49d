"""Every fact with its origin, filtered by the words typed (each must occur in kind, fields, file or line)."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import DataTable

from doctor.facts import Fact
from doctor.tui.widgets.table_util import Cell, add_sized_columns

MAX_CELL = 60


def fields_text(fact: Fact) -> str:
    values = {k: v for k, v in fact.as_dict().items() if k not in ("kind", "node", "rank") and v not in ("", -1, None)}
    return " ".join(f"{k}={v}" for k, v in values.items())


def haystack(fact: Fact) -> str:
    o = fact.origin
    return f"{fact.KIND} {fact.node} rank={fact.rank} {fields_text(fact)} {o.where()} {o.text} {o.probe} {o.mode}".lower()


def matches(fact: Fact, query: str) -> bool:
    text = haystack(fact)
    return all(word in text for word in query.lower().split())


def _clip(text: str, width: int = MAX_CELL) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _clip_left(text: str, width: int) -> str:
    """Keep the end of a path (the file name and line number)."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1:]


class FactTable(DataTable):
    """Owns the fact list; `show_matching(query)` filters it."""

    def __init__(self, facts: list[Fact], *, id: str | None = None) -> None:
        super().__init__(id=id, zebra_stripes=True, cursor_type="row")
        self.facts = list(facts)

    def on_mount(self) -> None:
        add_sized_columns(self, HEADERS, [row(f) for f in self.facts], CAPS)
        self.show_matching("")

    def show_matching(self, query: str) -> int:
        """Show the facts matching query; returns how many."""
        self.clear()
        shown = [f for f in self.facts if matches(f, query)]
        for fact in shown:
            self.add_row(*row(fact))
        return len(shown)


HEADERS = ("kind", "node", "rank", "fields", "origin", "line")
CAPS = (20, 14, 4, 40, 36, 200)


def row(fact: Fact) -> tuple[Cell, ...]:
    o = fact.origin
    mode = Content.styled(" live", "bold $success") if o.mode == "live" else Content("")
    return (Content.styled(fact.KIND, "bold $text-accent"), fact.node, "" if fact.rank < 0 else str(fact.rank),
            _clip(fields_text(fact), CAPS[3]), Content.assemble(_clip_left(o.where(), CAPS[4] - 5), mode), _clip(o.text, 120))
