"""The fleet store: one SQLite file behind this module's small interface (a server database can replace it later).

Why SQLite: in the standard library (no extra dependency for the default path), one file, WAL journal
so `fleet report` reads while an ingest writes, and `INSERT OR IGNORE` on a content-hash key makes
ingest idempotent. Each job is committed in its own transaction, so a killed ingest loses at most the
job in flight and a rerun neither doubles nor misses one. The report's queries are small aggregations
over tens of thousands of rows, well inside what SQLite does in milliseconds; DuckDB's column engine
would pay off only at far larger scale and would be one more wheel to install.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from doctor.errors import InputError

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    key TEXT PRIMARY KEY,          -- SHA-256 of the upload's files (doctor/fleet/upload.py)
    job TEXT NOT NULL,             -- the job id read from the logs
    path TEXT NOT NULL,            -- where it was ingested from
    started REAL, ended REAL,      -- unix seconds, from the logs (NULL when they carry no date)
    ingested REAL NOT NULL,
    version TEXT NOT NULL,         -- doctor's version that analysed it
    nodes TEXT NOT NULL,           -- JSON list
    diagnoses TEXT NOT NULL        -- JSON list: cause, title, confidence, rules, nodes, ranks, evidence, fix
);
CREATE TABLE IF NOT EXISTS job_nodes (key TEXT NOT NULL, node TEXT NOT NULL, PRIMARY KEY (key, node)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS job_nodes_node ON job_nodes (node);
"""


def default_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "doctor" / "fleet.db"


@dataclass(slots=True)
class StoredJob:
    key: str
    job: str
    path: str
    started: float | None
    ended: float | None
    ingested: float
    version: str
    nodes: list[str]
    diagnoses: list[dict[str, Any]]

    @property
    def when(self) -> float:
        """The job's time: its last log timestamp, else when it was ingested."""
        return self.ended if self.ended is not None else self.ingested


class FleetStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        except (sqlite3.Error, OSError) as err:
            raise InputError(f"{self.path}: cannot open the fleet database ({err})") from err

    def __enter__(self) -> "FleetStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def keys(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT key FROM jobs")}

    def add(self, job: dict[str, Any]) -> bool:
        """Store one analysed job in its own transaction; False when its key is already stored."""
        with self._transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job["key"], job["job"], job["path"], job.get("started"), job.get("ended"), time.time(),
                 job["version"], json.dumps(job["nodes"]), json.dumps(job["diagnoses"])))
            if cursor.rowcount == 0:
                return False
            self.db.executemany("INSERT OR IGNORE INTO job_nodes VALUES (?, ?)",
                                [(job["key"], node) for node in job["nodes"]])
        return True

    def jobs(self, since: float | None = None) -> list[StoredJob]:
        rows = self.db.execute(
            "SELECT key, job, path, started, ended, ingested, version, nodes, diagnoses FROM jobs "
            "WHERE ? IS NULL OR COALESCE(ended, ingested) >= ? ORDER BY COALESCE(ended, ingested), key",
            (since, since)).fetchall()
        # one JSON parse for all rows' lists: 10,000 small json.loads calls cost more than the parsing itself
        nodes = json.loads("[" + ",".join(row[7] for row in rows) + "]")
        diagnoses = json.loads("[" + ",".join(row[8] for row in rows) + "]")
        return [StoredJob(*row[:7], n, d) for row, n, d in zip(rows, nodes, diagnoses)]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
