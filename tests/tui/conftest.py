"""Fixtures of the TUI tests (helpers live in tui_helpers.py)."""
from __future__ import annotations

import pytest

pytest.importorskip("textual", reason="the TUI tests need textual (pip install 'doctor[tui]')")

from tui_helpers import in_repo, store_incident, store_server  # noqa: E402,F401 - fixtures
