"""rules/data/known_bugs.yaml: a checked table, and the rule that uses it on real-format text."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.known_bugs import TABLE, table
from doctor.probing.lines import version_num

ROOT = Path(__file__).resolve().parents[1]


def test_every_entry_names_its_maintainers_statement_and_a_real_range() -> None:
    bugs = table()
    assert len(bugs) >= 3 and len({b.id for b in bugs}) == len(bugs)
    for bug in bugs:
        assert bug.references[0].startswith("https://") and bug.confirmed
        assert version_num(bug.affected_from) < version_num(bug.fixed), bug.id


def test_a_broken_entry_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "known_bugs.yaml"
    bad.write_text(TABLE.read_text().replace("references: [\"https://github.com/horovod/horovod/issues/2601\"]",
                                             "references: [\"see the forum\"]"))
    with pytest.raises(ValueError, match="nccl-2.8.3-alltoall-hang"):
        table.__wrapped__(bad)


def test_the_table_is_not_loaded_as_rules() -> None:
    from doctor.diagnose import rule_base
    rules, _ = rule_base()
    assert not [r for r in rules if "rules/data" in str(r.path).replace("\\", "/")]
