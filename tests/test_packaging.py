"""`pip install .` (not editable) gives a doctor that works from any folder: every rule and data file is in the wheel."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from doctor_cli import REPO

DATA_GLOBS = ("rules/**/*.yaml", "doctor/**/*.tcss", "doctor/**/*.yaml")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           str(REPO), "-w", str(out)], capture_output=True, text=True, timeout=300, cwd=out)
    if done.returncode != 0 and "No module named pip" in done.stderr:
        pytest.skip("this Python has no pip to build a wheel with")
    assert done.returncode == 0, done.stderr[-2000:]
    return next(out.glob("doctor-*.whl"))


def test_the_wheel_holds_every_rule_and_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {str(p.relative_to(REPO)) for pattern in DATA_GLOBS for p in REPO.glob(pattern)}
    assert len([w for w in wanted if w.startswith("rules/")]) > 200
    assert not wanted - names, sorted(wanted - names)[:10]


def test_the_unpacked_wheel_runs_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site), DOCTOR_CACHE_DIR="off")
    run = lambda *args: subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,  # noqa: E731
                                       timeout=120, cwd=elsewhere, env=env)
    where = subprocess.run([sys.executable, "-c", "import doctor, rules; print(doctor.__file__, rules.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd=elsewhere, env=env).stdout
    assert where.count(str(site)) == 2, where              # the wheel's code and rules, not the checkout's
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("doctor "), version.stderr
    rules = run("rules")
    assert rules.returncode == 0 and "NET001" in rules.stdout, rules.stderr
    report = run("analyze", "--json", str(REPO / "fixtures/incidents/store-port-dropped-netns"))
    assert report.returncode == 1, report.stderr
    assert "\"port_blocked\"" in report.stdout
