"""`--ray`: the same per-job analysis as Ray tasks on a real local Ray instance stores what the local path stores."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from doctor.fleet.ingest import ingest, ray_session
from doctor.fleet.store import FleetStore

pytest.importorskip("ray", reason="the Ray path needs ray (pip install 'doctor[ray]')")


def rows(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(db) as conn:
        return {r[0]: r[1:] for r in conn.execute("SELECT key, job, path, started, ended, version, nodes, diagnoses "
                                                  "FROM jobs")}


@pytest.mark.slow
def test_ray_results_equal_the_local_pools(small_fleet, tmp_path: Path) -> None:
    uploads = small_fleet.uploads[:20] + small_fleet.hostile[:2]
    with FleetStore(tmp_path / "local.db") as store:
        local = ingest(uploads, store, workers=2)
    with FleetStore(tmp_path / "ray.db") as store, ray_session():     # one local Ray instance for both runs
        remote = ingest(uploads, store, use_ray=True)
        again = ingest(uploads, store, use_ray=True)           # idempotent on Ray too
    assert (remote.added, len(remote.failed)) == (local.added, len(local.failed)) == (20, 2)
    assert sorted(remote.failed) == sorted(local.failed)
    assert (again.added, again.known) == (0, 20)
    assert rows(tmp_path / "ray.db") == rows(tmp_path / "local.db")
    assert any(row[-1] != "[]" for row in rows(tmp_path / "ray.db").values())   # diagnoses were compared, not blanks
