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


POLICY_TESTS = [(rule, test) for rule, test in CASES if test.policy]


@pytest.mark.parametrize("rule,test", POLICY_TESTS, ids=[f"{r.id}-{t.name}" for r, t in POLICY_TESTS])
def test_a_policy_rule_fires_because_of_its_policy(rule, test) -> None:
    """The same real input without the policy file is quiet: the finding is the judgement against the policy."""
    from dataclasses import replace
    assert test.expect == "fires" and outcome(rule, replace(test, policy="")) == "quiet"


def test_a_policy_test_without_an_input_is_refused(tmp_path: Path) -> None:
    import shutil

    from doctor.errors import RuleError
    from doctor.rulebase import load
    root = tmp_path / "rules"
    shutil.copytree(load.RULES_DIR, root)
    path = next(root.glob("policy/POL001-*.yaml"))
    path.write_text(path.read_text().replace("    input: fixtures/probes/dev_shm/", "    facts_from: fixtures/probes/dev_shm/", 1))
    with pytest.raises(RuleError, match=r"POL001-.*\.yaml:\d+: a test with a policy needs an input"):
        load.load_rules(root)
