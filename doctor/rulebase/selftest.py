"""Run a rule's own tests (the `tests:` list in its YAML): fixtures or inline facts -> fires or quiet."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from doctor.aggregate import aggregate
from doctor.engine import Finding, run
from doctor.facts import FACT_KINDS, Fact, Origin
from doctor.rulebase.model import Rule, RuleTest

REPO = Path(__file__).resolve().parents[2]


def facts_from_dicts(items: tuple[dict[str, Any], ...] | list[dict[str, Any]], source: str = "<inline>") -> list[Fact]:
    out: list[Fact] = []
    for i, item in enumerate(items, start=1):
        values = {k: v for k, v in item.items() if k != "kind"}
        cls = FACT_KINDS[item["kind"]]
        out.append(cls(origin=Origin(source, i, str(item)[:200], "inline"), **values))
    return out


def facts_for(test: RuleTest) -> list[Fact]:
    if test.input:
        from doctor.probing.offline import gather_files
        from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
        gathered = gather_files([str(REPO / test.input)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
        return aggregate(gathered + policy_facts(test.policy))
    return facts_from_dicts(test.facts)


def policy_facts(path: str) -> list[Fact]:
    """The policy.* facts of a policy file, as `doctor check --policy FILE` compiles them (none without a file)."""
    if not path:
        return []
    from doctor.check.policy import load
    return list(load(REPO / path).facts)


def run_test(rule: Rule, test: RuleTest, engine: str = "native") -> list[Finding]:
    return run([rule], facts_for(test), engine)


def outcome(rule: Rule, test: RuleTest, engine: str = "native") -> str:
    return "fires" if run_test(rule, test, engine) else "quiet"
