"""Count the rules whose every `fires` test is a list of facts (restating the rule's own `where`), none reading text.

    python tools/fact_only_tests.py            # the count, then the rules per area
    python tools/fact_only_tests.py --list     # every such rule id

Issue 12, item 5: a rule's fires test should read real or lab-recorded text (fixtures/logs, fixtures/probes,
fixtures/nodes, fixtures/incidents), so that it fails when the probe or the rule stops seeing the real sign.
"""
from __future__ import annotations

import sys
from collections import Counter

from doctor.diagnose import rule_base


def fact_only(rules) -> list:
    """Rules with no fires test on an input file."""
    return [r for r in rules if not any(t.expect == "fires" and t.input for t in r.tests)]


def main(argv: list[str]) -> int:
    rules, _ = rule_base()
    only = fact_only(rules)
    print(f"{len(only)} of {len(rules)} rules have only fact-list fires tests ({len(only) / len(rules):.0%})")
    areas = Counter(r.id.rstrip("0123456789") for r in only)
    print("  " + ", ".join(f"{a} {n}" for a, n in areas.most_common()))
    if "--list" in argv:
        print("\n".join(sorted(r.id for r in only)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def firing_inputs(rules) -> dict[str, list[str]]:
    """rule id -> fixture inputs (relative paths) on which it fires: candidates for a fires test on text."""
    from pathlib import Path

    from doctor.aggregate import aggregate
    from doctor.engine import run
    from doctor.probing.offline import gather_files
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    from tools.shared_lines import ROOT, inputs

    out: dict[str, list[str]] = {}
    for path in inputs():
        facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
        for rid in sorted({f.rule.id for f in run(rules, facts, "native")}):
            out.setdefault(rid, []).append(str(Path(path).relative_to(ROOT)))
    return out
