"""DataTable helpers: column widths from the cells themselves (styled Content cells are not measured for us)."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import DataTable

Cell = str | Content


def width_of(cell: Cell) -> int:
    return cell.cell_length if isinstance(cell, Content) else len(cell)


def add_sized_columns(table: DataTable, headers: tuple[str, ...], rows: list[tuple[Cell, ...]],
                      caps: tuple[int, ...]) -> None:
    """One column per header, as wide as its widest cell (at most its cap)."""
    for i, (header, cap) in enumerate(zip(headers, caps)):
        widest = max((width_of(row[i]) for row in rows), default=0)
        table.add_column(header, width=min(cap, max(len(header), widest)), key=header)
