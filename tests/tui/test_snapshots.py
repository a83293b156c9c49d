"""SVG snapshots of the main screens at 120x40, dark and light. Update only after looking: --snapshot-update."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.tui.app import DoctorApp
from tui_helpers import DEMO, SIZE, settle


def after(*keys: str):
    """run_before for snap_compare: wait for the inputs and the diagnosis, press keys, wait again."""
    async def run_before(pilot) -> None:
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)
    return run_before


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_symptom_screen(snap_compare, in_repo: Path, theme: str) -> None:
    assert snap_compare(DoctorApp([DEMO], theme=theme), terminal_size=SIZE, run_before=after("down", "down"))


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_diagnosis_screen_with_evidence_open(snap_compare, in_repo: Path, theme: str) -> None:
    app = DoctorApp([DEMO], symptom="nccl_error", theme=theme)
    assert snap_compare(app, terminal_size=SIZE, run_before=after("enter"))


def test_topology_screen(snap_compare, in_repo: Path) -> None:
    app = DoctorApp([DEMO], symptom="nccl_error")
    assert snap_compare(app, terminal_size=SIZE, run_before=after("t"))


def test_facts_screen_filtered(snap_compare, in_repo: Path) -> None:
    app = DoctorApp([DEMO], symptom="nccl_error")
    assert snap_compare(app, terminal_size=SIZE, run_before=after("f", "slash", *"nccl."))


def test_help_screen(snap_compare, in_repo: Path) -> None:
    app = DoctorApp([DEMO], symptom="nccl_error")
    assert snap_compare(app, terminal_size=SIZE, run_before=after("question_mark"))
