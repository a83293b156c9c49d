"""The fleet screen under Pilot: the heat map over a real fleet database, a node's jobs, one job's report."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("textual", reason="the TUI tests need textual (pip install 'doctor[tui]')")

from textual.widgets import DataTable  # noqa: E402

from doctor.tui.fleet_app import FleetApp  # noqa: E402
from doctor.tui.screens.diagnosis import DiagnosisScreen  # noqa: E402
from doctor.tui.screens.fleet import FleetScreen, NodeJobsScreen  # noqa: E402
from doctor.tui.widgets.diagnosis_list import DiagnosisList  # noqa: E402


def test_heat_map_then_node_jobs_then_a_job_report(fleet_db: Path, small_fleet) -> None:
    bad = small_fleet.bad[0]

    async def body() -> None:
        app = FleetApp(str(fleet_db))
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, FleetScreen)
            heat = app.screen.query_one("#heat", DataTable)
            first = heat.get_row_at(0)
            assert str(first[0]) == bad                                  # the most suspect node on top
            column = [str(c.label) for c in heat.ordered_columns].index("straggler")
            assert int(str(first[column]).strip()) >= 5                  # its repeated straggler, counted
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, NodeJobsScreen) and app.screen.node == bad
            jobs = app.screen.query_one("#node-jobs", DataTable)
            rows = [jobs.get_row_at(i) for i in range(jobs.row_count)]
            straggling = [i for i, row in enumerate(rows) if row[1] == "straggler" and row[2] == "yes"]
            assert len(straggling) >= 5
            jobs.move_cursor(row=straggling[0])
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, DiagnosisScreen)
            causes = app.screen.query_one(DiagnosisList)
            assert causes.current is not None and causes.current.cause == "straggler"
            assert any(bad in e.source for e in causes.current.evidence)
            await pilot.press("escape")                          # the diagnosis list has focus: back
            await pilot.pause()
            assert isinstance(app.screen, NodeJobsScreen)

    asyncio.run(body())
