"""`doctor analyze PATH... [--symptom S] [--json]`: diagnose uploaded artifacts. No GPU, no torch."""
from __future__ import annotations

import argparse
import json
import sys

from doctor.cli.exit_codes import ExitCode

SYMPTOMS = ("init_timeout", "hang", "nccl_error", "crash", "slow_training", "slow_multinode", "oom")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="log files, folders, .tar.gz or .zip bundles")
    parser.add_argument("--symptom", choices=SYMPTOMS, help="what you saw; causes that explain it rank higher")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (doctor.report/1)")
    parser.add_argument("--engine", choices=("native", "durable"), default="native", help="rule engine backend")
    parser.add_argument("--expect", action="append", default=[], metavar="METRIC=VALUE",
                        help="what a benchmark should reach, e.g. link_gbps=10, rdma_gbps=180, busbw_gbs=90 "
                             "(repeatable; an expectations file among the PATHs works too)")


def run(args: argparse.Namespace) -> int:
    from doctor.diagnose import diagnose_files
    from doctor.expectations import from_option
    expectations = [from_option(text) for text in args.expect]
    report = diagnose_files(args.paths, args.symptom, args.engine, extra=expectations)
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        from doctor.report.text import render
        Console(highlight=False).print(render(report))
    return ExitCode.OK if report.healthy else ExitCode.FINDINGS
