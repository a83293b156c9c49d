"""Which rules read the same source line: run every fixture input and list the rule pairs whose findings are bound
to one (file, line).

    python tools/shared_lines.py [PATH...]      # default: every input under fixtures/

Two rules on one line are fine when they say different things (a cause and its context); when they name the
same cause for the same reason they are a duplicate and one should go. The ranking counts each line once.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from doctor.aggregate import aggregate
from doctor.diagnose import rule_base
from doctor.engine import run
from doctor.probing.offline import gather_files

ROOT = Path(__file__).resolve().parents[1]


def inputs() -> list[Path]:
    probes = sorted(p for p in (ROOT / "fixtures" / "probes").glob("*/*") if not p.name.endswith(".facts.yaml"))
    cases = sorted(p for p in (ROOT / "fixtures" / "incidents").iterdir() if p.is_dir())
    return sorted((ROOT / "fixtures" / "logs").iterdir()) + probes + cases + sorted((ROOT / "fixtures" / "nodes").iterdir())


def shared(paths: list[Path]) -> dict[tuple[str, ...], set[str]]:
    """(rule ids reading one line, sorted) -> 'file:line' examples."""
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    rules, _ = rule_base()
    out: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for path in paths:
        facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
        by_line: dict[tuple[str, int], set[str]] = defaultdict(set)
        for finding in run(rules, facts, "native"):
            for _, fact in finding.bindings:
                if fact.origin.line:
                    by_line[(fact.origin.source, fact.origin.line)].add(finding.rule.id)
        for (source, line), ids in by_line.items():
            if len(ids) > 1:
                out[tuple(sorted(ids))].add(f"{Path(source).name}:{line}")
    return out


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or inputs()
    rules = {r.id: r for r in rule_base()[0]}
    for ids, where in sorted(shared(paths).items()):
        causes = sorted({rules[i].cause for i in ids})
        print(f"{' + '.join(ids):28} {'SAME CAUSE ' + causes[0] if len(causes) == 1 else ', '.join(causes):40} {sorted(where)[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
