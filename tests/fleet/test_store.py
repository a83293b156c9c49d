"""The store on a real SQLite file: idempotent by content, each job its own transaction, the default path."""
from __future__ import annotations

import shutil
import sqlite3
import tarfile
from pathlib import Path

import pytest

from doctor.fleet.ingest import ingest
from doctor.fleet.store import FleetStore, default_path
from doctor.fleet.upload import read_upload

REPO = Path(__file__).resolve().parents[2]
INCIDENT = REPO / "fixtures" / "incidents" / "gloo-ifname-missing-netns"


def test_a_job_ingested_twice_and_as_a_bundle_is_stored_once(tmp_path: Path) -> None:
    folder = tmp_path / "job"
    shutil.copytree(INCIDENT, folder)
    bundle = tmp_path / "job.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        tar.add(folder, arcname="job")
    db = tmp_path / "fleet.db"
    with FleetStore(db) as store:
        first = ingest([str(folder)], store, workers=1)
        again = ingest([str(folder), str(bundle)], store, workers=1)
        assert (first.added, again.added, again.known) == (1, 0, 2)
        [job] = store.jobs()
    assert job.nodes == ["node0", "node1"] and job.diagnoses[0]["cause"] == "wrong_socket_ifname"
    assert job.diagnoses[0]["nodes"] == ["node1"]                     # the evidence line is in node1.log
    with sqlite3.connect(db) as conn:                                # what is on disk, read without the module
        assert conn.execute("SELECT COUNT(*) FROM jobs").fetchone() == (1,)
        assert conn.execute("SELECT COUNT(*) FROM job_nodes").fetchone() == (2,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_changed_content_is_a_different_job(tmp_path: Path) -> None:
    folder = tmp_path / "job"
    shutil.copytree(INCIDENT, folder)
    before = read_upload(str(folder)).key
    with open(folder / "node0.log", "a") as fh:
        fh.write("one more line\n")
    assert read_upload(str(folder)).key != before


def test_identity_from_slurm_lines(tmp_path: Path) -> None:
    (tmp_path / "slurm-env.txt").write_text("# job started 2026-11-20T10:00:00+00:00\nSLURM_JOB_ID=4242\n"
                                            "SLURM_JOB_NODELIST=gpu[01-03,07]\n")
    (tmp_path / "gpu01.log").write_text("[rank0] 2026-11-20 10:05:00 host=gpu01 step 1\n")
    upload = read_upload(str(tmp_path))
    assert upload.job == "4242" and upload.nodes == ["gpu01", "gpu02", "gpu03", "gpu07"]
    assert (upload.started, upload.ended) == (1795168800.0, 1795169100.0)


def test_since_filters_on_the_jobs_own_time(tmp_path: Path) -> None:
    with FleetStore(tmp_path / "f.db") as store:
        for key, ended in (("old", 1000.0), ("new", 2000.0)):
            store.add({"key": key, "job": key, "path": key, "started": None, "ended": ended, "version": "t",
                       "nodes": ["n1"], "diagnoses": []})
        assert [j.key for j in store.jobs(since=1500.0)] == ["new"]
        assert [j.key for j in store.jobs()] == ["old", "new"]


def test_default_path_is_under_the_users_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "doctor" / "fleet.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_path() == tmp_path / ".local" / "share" / "doctor" / "fleet.db"
