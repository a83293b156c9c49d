"""`doctor rules [--cause C]`: list the rule base."""
from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from doctor.cli.exit_codes import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cause", help="only rules for this cause id")


def run(args: argparse.Namespace) -> int:
    from doctor.diagnose import rule_base
    rules, _ = rule_base()
    table = Table("id", "name", "cause", "conf", "symptoms", box=None)
    for rule in sorted(rules, key=lambda r: r.id):
        if args.cause and rule.cause != args.cause:
            continue
        table.add_row(rule.id, rule.name, rule.cause, f"{rule.confidence:.2f}", ", ".join(rule.symptoms))
    Console(highlight=False).print(table)
    return ExitCode.OK
