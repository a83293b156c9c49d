"""Golden tests: every fixtures/probes/<probe>/<case>.<ext> parses to <case>.facts.yaml.

A missing golden fails: the test never writes its own expected output. Write goldens deliberately, after a
parser change or for a new fixture, with DOCTOR_UPDATE_GOLDENS=1 and review the diff like code:
    DOCTOR_UPDATE_GOLDENS=1 python -m pytest tests/probes/test_goldens.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from doctor.probing.contract import parse_document, parse_lines
from probes import DOCUMENT_PROBES, LINE_PROBES

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "probes"
BY_NAME = {cls.name: cls for cls in (*LINE_PROBES, *DOCUMENT_PROBES)}
CASES = sorted(p for p in ROOT.glob("*/*") if p.is_file() and not p.name.endswith(".facts.yaml")
               and p.parent.name in BY_NAME)


def facts_of(path: Path) -> list[dict]:
    probe = BY_NAME[path.parent.name]
    text = path.read_text(encoding="utf-8", errors="replace")
    run = parse_document if probe in DOCUMENT_PROBES else parse_lines
    facts = run(probe, text, source=path.name, node="input")
    return [{**f.as_dict(), "line": f.origin.line} for f in facts]


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_golden(path: Path) -> None:
    golden = path.with_name(path.name.rsplit(".", 1)[0] + ".facts.yaml")
    got = facts_of(path)
    if os.environ.get("DOCTOR_UPDATE_GOLDENS") == "1":
        golden.write_text(yaml.safe_dump(got, sort_keys=False, allow_unicode=True), encoding="utf-8")
    if not golden.exists():
        pytest.fail(f"no golden {golden.name}: write it with DOCTOR_UPDATE_GOLDENS=1, review it, commit it")
    assert got == yaml.safe_load(golden.read_text(encoding="utf-8"))


def test_every_probe_dir_names_a_probe() -> None:
    unknown = sorted({p.name for p in ROOT.iterdir() if p.is_dir()} - set(BY_NAME))
    assert not unknown, f"fixtures/probes/ folders without a probe of that name: {unknown}"


def test_a_missing_golden_fails_and_is_not_written(tmp_path: Path, monkeypatch) -> None:
    sample = tmp_path / "nccl_log" / "new-case.log"
    sample.parent.mkdir()
    sample.write_text("node1:123:456 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n")
    monkeypatch.delenv("DOCTOR_UPDATE_GOLDENS", raising=False)
    with pytest.raises(pytest.fail.Exception, match="DOCTOR_UPDATE_GOLDENS=1"):
        test_golden(sample)
    assert not sample.with_name("new-case.facts.yaml").exists()
