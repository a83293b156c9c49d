"""`doctor tui [PATH...]`: interactive triage in the terminal (uploaded artifacts, or this node live).

textual is imported only here, inside run(), so `doctor --help` and `doctor analyze` never load it.
"""
from __future__ import annotations

import argparse
import importlib
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
    parser.add_argument("--fleet", metavar="DB", help="the fleet screen over a fleet database (doctor fleet ingest)")


def run(args: argparse.Namespace) -> int:
    if args.fleet:
        return run_fleet(args.fleet)
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    app = _app("doctor.tui.app", "DoctorApp", "doctor tui", "doctor analyze PATH")
    app(list(args.paths), args.symptom, args.theme).run()
    return ExitCode.OK


def run_fleet(db: str) -> int:
    """The fleet screen over the database at db (it must exist: the TUI never creates one)."""
    if not os.path.exists(db):
        raise InputError(f"{db}: no fleet database here (create one with `doctor fleet ingest --db {db} PATH...`)")
    _app("doctor.tui.fleet_app", "FleetApp", "doctor fleet tui", "doctor fleet report")(db).run()
    return ExitCode.OK


def _app(module: str, name: str, command: str, instead: str):  # type: ignore[no-untyped-def]
    """The Textual app class, once a terminal is sure and textual imports; else one line saying what to do."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(f"{command} needs a terminal; for a report on stdout use `{instead}`")
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as err:
        raise UsageError(f"the TUI needs textual ({err.name} is missing), one of doctor's own dependencies: "
                         "reinstall it with `pip install doctor`") from err
