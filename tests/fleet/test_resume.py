"""Kill an ingest with SIGKILL mid-way, run it again: every job stored exactly once."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from doctor.fleet.upload import read_upload

REPO = Path(__file__).resolve().parents[2]


def stored(db: Path) -> list[str]:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return [row[0] for row in conn.execute("SELECT key FROM jobs")]
    except sqlite3.OperationalError:            # not created yet
        return []


def test_sigkill_mid_ingest_then_rerun_loses_and_doubles_nothing(small_fleet, tmp_path: Path) -> None:
    good = [u for u in small_fleet.uploads if u not in small_fleet.hostile]
    listing = tmp_path / "uploads.txt"
    listing.write_text("\n".join(good) + "\n")
    db = tmp_path / "fleet.db"
    argv = [sys.executable, "-m", "doctor", "fleet", "ingest", "--workers", "1", "--db", str(db), f"@{listing}"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(stored(db)) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    halfway = stored(db)
    assert 5 <= len(halfway) < len(good), "the kill must land mid-way"
    rerun = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{len(good) - len(halfway)} added, {len(halfway)} already stored" in rerun.stderr
    keys = stored(db)
    assert len(keys) == len(set(keys)) == len(good)
    assert set(keys) == {read_upload(u).key for u in good}
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        orphans = conn.execute("SELECT COUNT(*) FROM job_nodes WHERE key NOT IN (SELECT key FROM jobs)").fetchone()
        assert orphans == (0,)
