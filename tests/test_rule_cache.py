"""The JSON cache of the parsed rule base: used when the rule files are unchanged, never stale, never in the way."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from doctor.errors import RuleError
from doctor.rulebase import cache, load


@pytest.fixture
def rules_copy(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the shipped rule base standing in for it, and an empty cache folder."""
    root = tmp_path / "rules"
    shutil.copytree(load.RULES_DIR, root)
    monkeypatch.setattr(load, "RULES_DIR", root)
    monkeypatch.setenv("DOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    return root


def cached_files(root: Path) -> list[Path]:
    return sorted((root.parent / "cache").glob("rules-*.json"))


def test_second_load_reads_the_cache_and_builds_the_same_rules(rules_copy: Path, monkeypatch) -> None:
    first = load.load_rules(rules_copy)
    assert len(cached_files(rules_copy)) == 1
    monkeypatch.setattr(load, "_parse", lambda path, text: pytest.fail(f"{path} parsed again"))
    assert load.load_rules(rules_copy) == first


def test_an_edited_rule_is_never_served_from_the_cache(rules_copy: Path) -> None:
    load.load_rules(rules_copy)
    path = next(rules_copy.rglob("NET*.yaml"))
    text = path.read_text()
    title = next(line for line in text.splitlines() if line.startswith("title:"))
    path.write_text(text.replace(title, 'title: "edited after caching"'))
    rule = next(r for r in load.load_rules(rules_copy) if r.path == str(path))
    assert rule.title == "edited after caching"
    assert len(cached_files(rules_copy)) == 1           # the old key's file is gone


def test_a_broken_rule_is_reported_with_its_line_after_caching(rules_copy: Path) -> None:
    load.load_rules(rules_copy)
    path = next(rules_copy.rglob("NET*.yaml"))
    path.write_text(path.read_text().replace("cause:", "cause: [unclosed\ncause:", 1))
    with pytest.raises(RuleError, match=rf"^{path}:\d+: invalid YAML"):
        load.load_rules(rules_copy)


def test_a_damaged_cache_is_ignored_and_rewritten(rules_copy: Path) -> None:
    first = load.load_rules(rules_copy)
    (damaged,) = cached_files(rules_copy)
    damaged.write_bytes(b"\x00{not json")
    assert load.load_rules(rules_copy) == first
    assert cached_files(rules_copy)[0].read_bytes().startswith(b"[")


def test_off_or_unwritable_means_no_cache_and_no_error(rules_copy: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCTOR_CACHE_DIR", "off")
    assert load.load_rules(rules_copy) and not cached_files(rules_copy)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DOCTOR_CACHE_DIR", str(blocker / "cache"))
    assert load.load_rules(rules_copy)


def test_other_rule_folders_are_not_cached(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "mine"
    shutil.copytree(load.RULES_DIR, root)
    load.load_rules(root)
    assert not (tmp_path / "cache").exists()


def test_key_follows_names_and_bytes() -> None:
    base = cache.key([("a.yaml", b"x: 1\n")])
    assert base == cache.key([("a.yaml", b"x: 1\n")])
    assert base != cache.key([("b.yaml", b"x: 1\n")]) != cache.key([("a.yaml", b"x: 2\n")])
    assert cache.key([("a", b"bc")]) != cache.key([("ab", b"c")])
