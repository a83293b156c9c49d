"""`doctor util [--seconds S] [--interval I] [--save FILE] [--json]`: sample GPU utilisation live through NVML.

Exit 3 with one line when NVML cannot be used here (no driver, no GPU, nvidia-ml-py missing).
"""
from __future__ import annotations

import argparse
import json
import sys

from doctor.cli.exit_codes import ExitCode
from doctor.errors import CheckError, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=5.0, help="sampling window (default 5 s)")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples (default 0.2)")
    parser.add_argument("--save", metavar="FILE", help="also write the samples as nvidia-smi --query-gpu CSV")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (doctor.report/1)")


def run(args: argparse.Namespace) -> int:
    if not 0 < args.interval <= args.seconds <= 600:
        raise UsageError("need 0 < --interval <= --seconds <= 600")
    from doctor.probing.contract import Failed, ParseContext, Skipped
    from probes.nvml_sampler import live
    ctx = ParseContext(source=args.save or "nvml", mode="live", probe="nvml_sampler")
    outcome = live(args.seconds, args.interval, ctx, save=args.save)
    if isinstance(outcome, (Skipped, Failed)):
        reason = outcome.reason if isinstance(outcome, Skipped) else outcome.error
        raise CheckError(f"cannot sample GPU utilisation here: {reason}")
    from doctor.diagnose import diagnose_facts
    report = diagnose_facts(list(outcome.facts))
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        from doctor.report.text import render
        for fact in outcome.facts:
            print(f"GPU {fact.gpu}: SM {fact.sm_mean:.0f}% mean, {fact.low_frac:.0%} of samples below 30%, "
                  f"{'spiky' if fact.spiky else 'steady'}; memory {fact.mem_bw_mean:.0f}%")
        Console(highlight=False).print(render(report))
    return ExitCode.FINDINGS if report.diagnoses else ExitCode.OK
