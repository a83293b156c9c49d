"""`pip install .` (not editable) gives a doctor that works from any folder: every rule and data file is in the wheel."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from doctor_cli import REPO

VERSION = re.search(r'^version = "(.+)"$', (REPO / "pyproject.toml").read_text(), re.M).group(1)  # type: ignore[union-attr]
DATA_GLOBS = ("rules/**/*.yaml", "doctor/**/*.tcss", "doctor/**/*.yaml")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"        # a copy: an in-tree build leaves build/ in the checkout, and a stale build/lib
    source.mkdir()                 # would put files deleted since into the wheel
    for name in ("pyproject.toml", "README.md", "doctor", "probes", "rules"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           str(source), "-w", str(out)], capture_output=True, text=True, timeout=300, cwd=out)
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
    assert (version.returncode, version.stdout) == (0, f"doctor {VERSION}\n"), version.stderr    # the wheel's metadata
    rules = run("rules")
    assert rules.returncode == 0 and "NET001" in rules.stdout, rules.stderr
    report = run("analyze", "--json", str(REPO / "fixtures/incidents/store-port-dropped-netns"))
    assert report.returncode == 1, report.stderr
    assert "\"port_blocked\"" in report.stdout


def test_the_wheel_has_no_build_leftovers(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "lab/", "bench/", "fixtures/"))]


def test_version_from_the_checkout(doctor_cli) -> None:
    done = doctor_cli("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"doctor {VERSION}\n", "")
