"""The case base's tables for fixtures/cases/README.md, made from the case.yaml files (never typed by hand).

    python tools/case_table.py            # print the tables
    python tools/case_table.py --check    # exit 1 if README.md's tables differ from the case files

Counts every cause of rules/causes.yaml (0 where the public record gave none), public and lab separately.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "fixtures" / "cases"
BEGIN, END = "<!-- case-table:begin -->", "<!-- case-table:end -->"


def load() -> list[dict]:
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(CASES.glob("*/case.yaml"))]


def tables(cases: list[dict]) -> str:
    causes = sorted(yaml.safe_load((REPO / "rules" / "causes.yaml").read_text(encoding="utf-8"))["causes"])
    public = Counter(c["cause"] for c in cases if c.get("origin", "public") == "public")
    lab = Counter(c["cause"] for c in cases if c.get("origin") == "lab")
    rows = ["| cause | public | lab | total |", "|---|---:|---:|---:|"]
    for cause in [*causes, "healthy"]:
        rows.append(f"| {cause} | {public[cause]} | {lab[cause]} | {public[cause] + lab[cause]} |")
    rows.append(f"| **all** | {sum(public.values())} | {sum(lab.values())} | {len(cases)} |")
    listing = ["", "| case | cause | source | resolution |", "|---|---|---|---|"]
    for c in sorted(cases, key=lambda c: (c["cause"], c["id"])):
        listing.append(f"| {c['id']} | {c['cause']} | {c['source']} | {str(c.get('resolution', '')).replace('|', '/')} |")
    return "\n".join(rows + listing)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true", help="replace the tables between the markers in README.md")
    args = ap.parse_args()
    text = tables(load())
    readme = CASES / "README.md"
    current = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        updated = f"{head}{BEGIN}\n{text}\n{END}{rest.split(END, 1)[1]}"
    else:
        updated = current
    if args.check:
        if updated != current or BEGIN not in current:
            print("fixtures/cases/README.md's tables are out of date: python tools/case_table.py --write", file=sys.stderr)
            return 1
        return 0
    if args.write:
        readme.write_text(updated, encoding="utf-8")
        return 0
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
