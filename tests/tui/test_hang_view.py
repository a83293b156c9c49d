"""The hang view under Pilot: ranks x sequence ids of the hung process group, the cursor on the first mismatch,
Enter shows that rank's stack (py-spy when read, else the Flight Recorder's frames)."""
from __future__ import annotations

from pathlib import Path
from typing import Awaitable, Callable

from textual.widgets import DataTable, Static

from doctor.tui.app import DoctorApp
from doctor.tui.screens.hang import HangScreen
from tui_helpers import SIZE, run, settle


def in_hang_view(incident: str, check: Callable[[DoctorApp, object, DataTable], Awaitable[None]]) -> None:
    """Open the incident, press h, and run check(app, pilot, grid) on the hang view."""
    async def body() -> None:
        app = DoctorApp([f"fixtures/incidents/{incident}"], symptom="hang")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("h")
            await settle(pilot)
            assert isinstance(app.screen, HangScreen)
            await check(app, pilot, app.screen.query_one(DataTable))
    run(body)


async def stack_after(app: DoctorApp, pilot, *keys: str) -> str:
    await pilot.press(*keys)
    await pilot.pause()
    return str(app.screen.query_one("#hang-stack", Static).render())


def test_cursor_on_first_mismatch_and_enter_shows_the_culprits_stack(in_repo: Path) -> None:
    async def check(app: DoctorApp, pilot, table: DataTable) -> None:
        assert table.row_count == 4 and table.cursor_coordinate.row == 1          # rank 1
        assert str(table.ordered_columns[table.cursor_coordinate.column].label) == "#5"
        assert str(table.get_cell_at(table.cursor_coordinate)) == "—"             # rank 1 never started #5
        assert str(table.get_cell("0", "5")).startswith("all_reduce")
        stack = await stack_after(app, pilot, "enter")
        assert "py-spy, rank 1" in stack and "sleep (" in stack and "fr_scenarios.py:72" in stack
        stack = await stack_after(app, pilot, "up", "enter")
        assert "py-spy, rank 0" in stack and "all_reduce (" in stack
    in_hang_view("fr-sleep-pyspy", check)


def test_skip_puts_the_cursor_on_rank_2s_barrier(in_repo: Path) -> None:
    async def check(app: DoctorApp, pilot, table: DataTable) -> None:
        assert table.cursor_coordinate.row == 2
        assert str(table.get_cell_at(table.cursor_coordinate)) == "barrier ·"
        stack = await stack_after(app, pilot, "enter")
        assert "Flight Recorder frames of rank 2" in stack and "fr_scenarios.py:65 in skip" in stack
    in_hang_view("fr-skip", check)
