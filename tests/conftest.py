"""Shared test helpers: the repository root, the shared folder, a CLI runner in a subprocess, and the
`needs` marker that skips a test, before it starts, when the machine lacks a tool or capability."""
from __future__ import annotations

import pytest

from doctor_cli import REPO, SHARED, run_doctor  # noqa: F401  (re-exported for tests)
from needs import missing


@pytest.fixture
def doctor_cli():
    return run_doctor


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers(name="needs"):
        for name in mark.args:
            if reason := missing(name):
                pytest.skip(reason)
