"""`doctor explain ID`: one rule's page: what it detects, why, when it is wrong, the fix, a real example."""
from __future__ import annotations

import argparse

from rich.console import Console, Group
from rich.markdown import Markdown
from rich.text import Text

from doctor.cli.exit_codes import ExitCode
from doctor.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule_id", metavar="ID", help="a rule id (see `doctor rules`) or a cause id")


def run(args: argparse.Namespace) -> int:
    from doctor.diagnose import rule_base
    rules, causes = rule_base()
    wanted = args.rule_id.upper()
    chosen = [r for r in rules if r.id == wanted] or [r for r in rules if r.cause == args.rule_id]
    if not chosen:
        raise UsageError(f"no rule or cause named {args.rule_id!r} (see `doctor rules`)")
    console = Console(highlight=False)
    for rule in chosen:
        console.print(_page(rule, causes.get(rule.cause, {})))
    return ExitCode.OK


def _page(rule, cause: dict) -> Group:
    lines = [f"# {rule.id} {rule.name}", f"**cause:** `{rule.cause}` — {cause.get('title', '')}",
             f"**confidence:** {rule.confidence}  **symptoms:** {', '.join(rule.symptoms)}", "## Why", rule.why]
    if rule.exceptions:
        lines += ["## When this is wrong", rule.exceptions]
    lines += ["## Fix", rule.fix_summary, *[f"1. {s}" for s in rule.fix_steps]]
    if rule.next_checks:
        lines += ["## Check next", *[f"- {c}" for c in rule.next_checks]]
    example = next((t for t in rule.tests if t.expect == "fires" and t.input), None)
    if example:
        lines += ["## Example", f"`doctor analyze {example.input}`"]
    if rule.references:
        lines += ["## References", *[f"- {r}" for r in rule.references]]
    return Group(Markdown("\n\n".join(lines)), Text(rule.path, style="grey50"))
