"""Record the lab's scenarios as incident fixtures.

    python -m lab.run                       # every scenario -> fixtures/incidents/<name>/
    python -m lab.run --only NAME [NAME ...] --out DIR
    python -m lab.run --list

Scenarios with ``nodes > 0`` need root and network namespaces; they are
skipped (with the reason) where those cannot be made, unless named with
--only, in which case the run fails. Exit status: 0 when every recorded
scenario showed its expected text, 1 otherwise, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from lab.netns import netns_unavailable_reason
from lab.record import LIBRARY_PATHS, REPO, record, torch_version
from lab.scenarios import SCENARIOS, Scenario, by_name

DEFAULT_OUT = REPO / "fixtures" / "incidents"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m lab.run", description="Record lab scenarios as fixtures.")
    p.add_argument("--only", nargs="+", metavar="NAME", help="scenarios to run (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where incident dirs go")
    p.add_argument("--list", action="store_true", help="print the scenario table and exit")
    return p.parse_args(argv)


def print_table() -> None:
    width = max(len(s.name) for s in SCENARIOS)
    for s in SCENARIOS:
        where = f"{s.nodes} netns nodes" if s.nodes else "loopback"
        print(f"{s.name:<{width}}  {s.cause:<19} {s.symptom:<13} {where:<13} {s.description}")


def cannot_run(sc: Scenario, netns_reason: str | None) -> str | None:
    """Why this machine cannot record the scenario (a library off the venv not named, no namespaces), or None."""
    unset = [LIBRARY_PATHS[n] for n in sc.needs if not os.environ.get(LIBRARY_PATHS[n])]
    if unset:
        return f"needs {', '.join(sc.needs)}: set {', '.join(unset)} (lab/README.md, Needs)"
    if sc.nodes and netns_reason:
        return f"needs network namespaces: {netns_reason}"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        print_table()
        return 0
    table = by_name()
    unknown = [n for n in args.only or [] if n not in table]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; see --list", file=sys.stderr)
        return 2
    chosen = [table[n] for n in args.only] if args.only else list(SCENARIOS)
    reason = netns_unavailable_reason() if any(s.nodes for s in chosen) else None
    torch = torch_version()
    failed = 0
    for sc in chosen:
        why = cannot_run(sc, reason)
        if why:
            if args.only:
                print(f"FAIL {sc.name}: {why}", file=sys.stderr)
                failed += 1
            else:
                print(f"skip {sc.name}: {why}")
            continue
        produced_by = f"python -m lab.run --only {sc.name}"
        res = record(sc, args.out / sc.name, produced_by, torch)
        codes = " ".join(f"{k}={v}" for k, v in res.returncodes.items())
        status = "ok  " if res.ok else "MISS"
        print(f"{status} {sc.name} ({res.seconds:.1f}s) exit codes: {codes}", flush=True)
        for text in res.missing:
            print(f"     expected text not in logs: {text!r}", flush=True)
        failed += not res.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
