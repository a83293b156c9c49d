"""The case base is well formed, its README's tables are current, and it shares nothing with the held-out corpus."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from doctor_cli import REPO, SHARED

CASES = sorted((REPO / "fixtures" / "cases").glob("*/case.yaml"))
CAUSES = set(yaml.safe_load((REPO / "rules" / "causes.yaml").read_text())["causes"]) | {"healthy"}
SYMPTOMS = {"init_timeout", "hang", "nccl_error", "crash", "slow_training", "slow_multinode", "oom", "none"}
FIELDS = {"id", "source", "symptom", "cause", "also_acceptable", "fix", "evidence"}


def test_there_are_cases() -> None:
    assert len(CASES) >= 150


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.parent.name)
def test_case_is_well_formed(path: Path) -> None:
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert FIELDS <= set(case), FIELDS - set(case)
    assert case["id"] == path.parent.name
    assert case["cause"] in CAUSES and set(case["also_acceptable"] or []) <= CAUSES
    assert case["symptom"] in SYMPTOMS
    assert str(case["source"]).startswith(("https://", "http://", "lab")), case["source"]
    inputs = [p for p in (path.parent / "input").rglob("*") if p.is_file()]
    assert inputs and all(p.stat().st_size > 0 for p in inputs)


def test_no_case_comes_from_a_held_out_thread() -> None:
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is not beside this checkout")
    held_out = {str(yaml.safe_load(p.read_text())["source"]).strip() for p in corpus.glob("*/case.yaml")}
    ours = {str(yaml.safe_load(p.read_text())["source"]).strip(): p.parent.name for p in CASES}
    assert not held_out & set(ours), sorted(ours[s] for s in held_out & set(ours))


def test_readme_tables_are_current() -> None:
    done = subprocess.run([sys.executable, "tools/case_table.py", "--check"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _input_digest(case_dir: Path) -> str:
    """The input's files by content, whatever they are named (one paste saved as nccl_debug.log and nccl_tests.log)."""
    files = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in (case_dir / "input").rglob("*") if p.is_file())
    return hashlib.sha256("\n".join(files).encode()).hexdigest()


def test_no_incident_is_counted_twice() -> None:
    """Two cases of one thread need two inputs (two reporters, or a failing and a working run): the same thread's
    same input gathered twice would count one incident twice (nccl-tests#287 was, by two batches)."""
    seen: dict[tuple[str, str], str] = {}
    twice = []
    for path in CASES:
        key = (str(yaml.safe_load(path.read_text(encoding="utf-8"))["source"]).strip(), _input_digest(path.parent))
        if key in seen:
            twice.append((seen[key], path.parent.name))
        seen.setdefault(key, path.parent.name)
    assert not twice, twice
