"""End to end in a real terminal: tmux runs `doctor tui <incident>`, keys go in, the screen text comes out.

Startup-to-first-paint is measured by bench/tui_first_paint.py (against a bare Textual app), not asserted here.
"""
from __future__ import annotations

import shlex
import sys

import pytest

from tmux_terminal import TmuxTerminal
from tui_helpers import DEMO, REPO

pytestmark = pytest.mark.needs("tmux")


def doctor_command(*args: str) -> str:
    return f"env PYTHONPATH={shlex.quote(str(REPO))} {shlex.quote(sys.executable)} -m doctor " + shlex.join(args)


def test_tui_in_tmux_shows_cause_and_evidence_then_quits() -> None:
    with TmuxTerminal(doctor_command("tui", DEMO), str(REPO)) as term:
        term.start()
        term.wait_for(lambda s: all(x in s for x in ("What do you see?", "Read 3 of 3 input(s)", "3 NCCL error")))
        term.send("3")
        _, diagnosis = term.wait_for(lambda s: "Ranked causes" in s and "stale_process_gpu_memory" in s)
        assert diagnosis.index("shm_too_small") < diagnosis.index("stale_process_gpu_memory")
        term.send("Enter")
        term.wait_for(lambda s: all(x in s for x in (
            "NCCL could not create a shared-memory segment",                # the cause title
            f"{DEMO}/rank1-nccl.log:17",                                    # the evidence line: file:line
            "posix_fallocate failed: No space left on device")))            # and its text
        term.send("q")
        term.wait_for(lambda s: term.pane_dead(), timeout_s=10)
