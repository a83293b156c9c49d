"""How often durable_rules' C engine crashes: the durable side of the differential set, run many times.

    PYTHONPATH=$PWD .venv/bin/python bench/durable_crashes.py [--runs 200] [--budget-s 1500] [--json]

One run is what tests/engine/test_differential.py sends to the durable engine for the rule tests: every
rule test case ([rule] x its facts) and then the whole rule base over every case's facts, all through one
fresh durable_rules child (doctor/engine/durable_worker.py), replaced every RUNS_PER_CHILD runs, as one
pytest session does. A crash of the
child (DurableCrash) is counted with its signal or exit status, and the run goes on with a new child, as
the test run does. Baseline in the same run: none needed, the figure is a count (crashed runs / runs).
Stops after --runs runs or --budget-s seconds, whichever comes first, and says how many it did.
Exit 0 when no run crashed, 1 otherwise.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time

from doctor.diagnose import rule_base
from doctor.engine import durable, run
from doctor.rulebase.selftest import facts_for


def one_run(rules: list, cases: list) -> list[str]:
    """The durable side of the set once, in a fresh child; where it crashed and how."""
    durable.stop_worker()
    crashes = []
    batches = [(f"{rule.id} {test.name}", [rule], facts_for(test)) for rule, test in cases]
    batches.append(("whole rule base", list(rules), [f for _, test in cases for f in facts_for(test)]))
    for number, (name, batch_rules, facts) in enumerate(batches):
        try:
            run(batch_rules, facts, "durable")
        except durable.DurableCrash as crash:
            crashes.append(f"batch {number} ({name}): {crash}")
    return crashes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--budget-s", type=float, default=1500.0, help="stop starting runs after this many seconds")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if reason := durable.available():
        print(f"durable_crashes: {reason}", file=sys.stderr)
        return 2
    rules, _ = rule_base()
    cases = [(rule, test) for rule in rules for test in rule.tests]
    started, done, crashed_runs, kinds = time.monotonic(), 0, 0, collections.Counter()
    while done < args.runs and time.monotonic() - started < args.budget_s:
        crashes = one_run(rules, cases)
        done += 1
        crashed_runs += bool(crashes)
        kinds.update(c.split(": ", 1)[1] for c in crashes)
        if crashes:
            print(f"run {done}: {len(crashes)} crash(es): {'; '.join(crashes)}", file=sys.stderr)
    seconds = time.monotonic() - started
    result = {"runs": done, "asked": args.runs, "batches_per_run": len(cases) + 1, "crashed_runs": crashed_runs,
              "crashes": sum(kinds.values()), "crash_messages": dict(kinds), "seconds": round(seconds, 1),
              "seconds_per_run": round(seconds / max(done, 1), 2)}
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))
    durable.stop_worker()
    return 1 if crashed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
