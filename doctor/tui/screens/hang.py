"""Who is where in the hung process group: ranks x sequence ids from the Flight Recorder dumps.

The grid shows the process group of the first disagreement (fr.mismatch), one row per rank and one column per
collective sequence id around it; the cursor starts on the culprit's cell at the first mismatch. Enter shows that
rank's stack: its py-spy dump when one was read, else the frames the Flight Recorder kept for its stuck op.
"""
from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from doctor.aggregate_flight_recorder import Group, groups_of
from doctor.facts import Fact
from doctor.facts.flight_recorder import FrMismatch, ProcessStack
from doctor.tui.screens.view import ViewScreen
from doctor.tui.widgets.header import ICON

BEFORE = 4                 # sequence ids shown before the first mismatch
MARK = {"completed": "✓", "started": "…", "scheduled": "·"}


@dataclass(frozen=True)
class HangGrid:
    title: str
    ranks: list[int]
    seqs: list[int]
    cells: dict[tuple[int, int], str]
    cursor: tuple[int, int]            # (row, column)
    stacks: dict[int, str]


def hang_grid(facts: list[Fact]) -> HangGrid | None:
    """The grid of the first process group whose ranks disagree; None when the dumps show none."""
    mismatch = next((f for f in facts if isinstance(f, FrMismatch)), None)
    if mismatch is None:
        return None
    group = next(g for g in groups_of(facts) if g.pg == mismatch.pg and g.desc == mismatch.pg_desc)
    colls = group.collectives()
    ranks = sorted(group.members)
    top = max((max(ops, default=-1) for ops in colls.values()), default=mismatch.seq)
    seqs = list(range(max(1, mismatch.seq - BEFORE), max(top, mismatch.seq) + 1))
    cells = {}
    for rank in ranks:
        for seq in seqs:
            op = colls.get(rank, {}).get(seq)
            empty = "no dump" if rank not in colls else "—"
            cells[(rank, seq)] = f"{op.name} {MARK.get(op.state, '?')}" if op else empty
    culprit = mismatch.rank if mismatch.rank in ranks else ranks[0]
    return HangGrid(title=f"process group {group.pg} ({group.desc or '-'}): {mismatch.origin.text}", ranks=ranks,
                    seqs=seqs, cells=cells, cursor=(ranks.index(culprit), seqs.index(mismatch.seq)
                                                    if mismatch.seq in seqs else 0),
                    stacks=_stacks(group, facts))


def _stacks(group: Group, facts: list[Fact]) -> dict[int, str]:
    stacks = {rank: f"Flight Recorder frames of rank {rank}'s first unfinished op:\n{view.stack}"
              for rank, view in group.views.items() if view.stack}
    for f in facts:
        if isinstance(f, ProcessStack) and f.rank in group.members and f.frames:
            stacks[f.rank] = f"py-spy, rank {f.rank} (pid {f.pid}), main thread:\n{f.frames}"
    return stacks


class HangScreen(ViewScreen):
    SUB_TITLE = "who is where (Flight Recorder)"

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        self.grid = hang_grid(self.report.facts)
        yield Static(self.grid.title if self.grid else "No Flight Recorder dumps with a disagreement among the inputs.",
                     id="hang-title")
        yield DataTable(id="hang-grid", cursor_type="cell", zebra_stripes=True)
        with VerticalScroll(id="hang-stack-box"):
            yield Static("Enter on a cell shows that rank's stack.", id="hang-stack")
        yield Footer()

    def on_mount(self) -> None:
        if self.grid is None:
            return
        table = self.query_one(DataTable)
        table.add_column("rank", key="rank")
        for seq in self.grid.seqs:
            table.add_column(f"#{seq}", key=str(seq))
        for rank in self.grid.ranks:
            table.add_row(str(rank), *(self.grid.cells[(rank, seq)] for seq in self.grid.seqs), key=str(rank))
        row, column = self.grid.cursor
        table.move_cursor(row=row, column=column + 1)
        table.focus()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        if self.grid is None:
            return
        rank = self.grid.ranks[event.coordinate.row]
        self.query_one("#hang-stack", Static).update(self.grid.stacks.get(rank, f"No stack recorded for rank {rank}."))
