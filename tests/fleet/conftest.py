"""A small synthetic fleet (bench/fleet_synth.py: recombined lab recordings), analysed once per session."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

from fleet_synth import Truth, generate  # noqa: E402


@pytest.fixture(scope="session")
def small_fleet(tmp_path_factory: pytest.TempPathFactory) -> Truth:
    """40 jobs, one bad node repeating a straggler in 5 of them, 4 hostile uploads."""
    return generate(tmp_path_factory.mktemp("fleet") / "uploads", 40, seed=3, bad=1, bad_jobs=5)


@pytest.fixture(scope="session")
def fleet_db(small_fleet: Truth, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from doctor.fleet.ingest import ingest
    from doctor.fleet.store import FleetStore
    path = tmp_path_factory.mktemp("db") / "fleet.db"
    with FleetStore(path) as store:
        summary = ingest(small_fleet.uploads, store, workers=1)
    assert summary.added == 40 and len(summary.failed) == 4
    return path
