"""`doctor tui [PATH...]`: interactive triage in the terminal (uploaded artifacts, or this node live).

textual is imported only here, inside run(), so `doctor --help` and `doctor analyze` never load it.
"""
from __future__ import annotations

import argparse
import os
import sys

from doctor.cli.analyze import SYMPTOMS
from doctor.cli.exit_codes import ExitCode
from doctor.errors import InputError, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="log files, folders, .tar.gz or .zip bundles (none: probe this node live)")
    parser.add_argument("--symptom", choices=SYMPTOMS, help="skip the first screen: diagnose for this symptom")
    parser.add_argument("--theme", choices=("dark", "light"), default="dark", help="colour theme (ctrl+t switches)")


def run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("doctor tui needs a terminal; for a report on stdout use `doctor analyze PATH`")
    try:
        from doctor.tui.app import DoctorApp
    except ImportError as err:
        raise UsageError(f"the TUI needs textual ({err.name} is missing), one of doctor's own dependencies: "
                         "reinstall it with `pip install doctor`") from err
    DoctorApp(list(args.paths), args.symptom, args.theme).run()
    return ExitCode.OK
