"""Shared test helpers: the repository root, the shared folder, and a CLI runner in a subprocess."""
from __future__ import annotations

import pytest

from doctor_cli import REPO, SHARED, run_doctor  # noqa: F401  (re-exported for tests)


@pytest.fixture
def doctor_cli():
    return run_doctor
