"""How often durable_rules 2.0.28's C engine crashes on the differential set (issue 15).

Each run sends every rule test's facts, one durable session per test in rule-base order, to one fresh child
process (doctor/engine/isolated.py), exactly as tests/engine/test_differential.py does, but with no retry:
a child that dies is counted and replaced, and the run goes on with the next test.

    python bench/durable_crashes.py --runs 200
"""
from __future__ import annotations

import argparse
import collections
import sys
import time

from doctor.diagnose import rule_base
from doctor.engine.durable import available, session_hits
from doctor.engine.isolated import ChildCrashed, Worker
from doctor.rulebase.selftest import facts_for


MAX_CALLS = 0                         # --calls-per-child; 0: one child for the whole pass, as before the fix


def one_run(cases: list) -> list[str]:
    """The test ids at which the child died during one pass over the set."""
    worker, deaths = Worker("durable", max_calls=MAX_CALLS), []
    try:
        for rule, test in cases:
            try:
                worker.call(session_hits, [rule], facts_for(test), retries=0)
            except ChildCrashed:
                deaths.append(f"{rule.id}-{test.expect}-{test.name}")
    finally:
        worker.close()
    return deaths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--calls-per-child", type=int, default=0,
                    help="replace the child after N sessions (doctor's default is 100); 0: never")
    args = ap.parse_args()
    global MAX_CALLS
    MAX_CALLS = args.calls_per_child
    if reason := available():
        print(f"durable unavailable: {reason}", file=sys.stderr)
        return 2
    rules, _ = rule_base()
    cases = [(rule, test) for rule in rules for test in rule.tests]
    where: collections.Counter[str] = collections.Counter()
    runs_with_crash = 0
    start = time.perf_counter()
    for number in range(1, args.runs + 1):
        deaths = one_run(cases)
        where.update(deaths)
        runs_with_crash += bool(deaths)
        print(f"run {number}: {len(deaths)} crash(es) {' '.join(deaths)}", flush=True)
    total = sum(where.values())
    print(f"\n{args.runs} runs of {len(cases)} sessions in {time.perf_counter() - start:.0f} s: "
          f"{total} crashes, {runs_with_crash} runs with at least one")
    for test_id, count in where.most_common(10):
        print(f"  {count:4d}  {test_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
