"""Cluster tests: make the top-level `lab` package importable and register the `netns` marker."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "netns: runs real jobs across Linux network namespaces (needs root and iproute2)")
