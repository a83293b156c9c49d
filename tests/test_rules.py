"""Every rule's own tests (fires/quiet), run through the native engine; and the rule base lint."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from doctor.diagnose import rule_base
from doctor.rulebase.selftest import outcome

RULES, CAUSES = rule_base()
CASES = [(rule, test) for rule in RULES for test in rule.tests]


@pytest.mark.parametrize("rule,test", CASES, ids=[f"{r.id}-{t.expect}-{t.name}" for r, t in CASES])
def test_rule_case(rule, test) -> None:
    assert outcome(rule, test) == test.expect, f"{rule.path}: test {test.name!r} expected {test.expect}"


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_is_documented_and_tested(rule) -> None:
    expects = {t.expect for t in rule.tests}
    assert {"fires", "quiet"} <= expects, f"{rule.path}: needs at least one fires and one quiet test"
    assert len(rule.why) > 20, f"{rule.path}: docs.why is too short"
    assert rule.fix_summary and rule.title
    assert Path(rule.path).stem == f"{rule.id}-{rule.name}", f"{rule.path}: file must be named {rule.id}-{rule.name}.yaml"


def test_causes_cover_the_taxonomy() -> None:
    taxonomy = Path(__file__).resolve().parents[2] / "shared" / "taxonomy.yaml"
    if not taxonomy.exists():
        pytest.skip("../shared/taxonomy.yaml is not beside the checkout")
    ids = set(yaml.safe_load(taxonomy.read_text())["causes"])
    assert ids <= set(CAUSES), f"rules/causes.yaml lacks {sorted(ids - set(CAUSES))}"


def test_every_rule_cause_is_known() -> None:
    assert all(rule.cause in CAUSES for rule in RULES)
