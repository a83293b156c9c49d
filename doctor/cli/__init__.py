"""Command line: one module per verb, listed in COMMANDS. main() turns every DoctorError into one line + exit code."""
from __future__ import annotations

import argparse
import importlib
import signal
import sys
from typing import Callable

from doctor import __version__
from doctor.cli.exit_codes import ExitCode
from doctor.errors import DoctorError
from doctor.printable import printable

# verb -> (module, one-line help). A verb's module is imported only when that verb is on the command
# line (for its arguments and its run()), so `doctor --help` imports none and `doctor analyze` only
# its own: never torch, pynvml, textual or the other verbs' rich renderers.
COMMANDS: dict[str, tuple[str, str]] = {
    "analyze": ("doctor.cli.analyze", "diagnose uploaded logs and artifacts (files, folders, .tar.gz/.zip)"),
    "rules": ("doctor.cli.rules", "list the rule base"),
    "explain": ("doctor.cli.explain", "show one rule: why, fix, example"),
    "tui": ("doctor.cli.tui", "interactive triage in the terminal: symptom, ranked causes, evidence, live checks"),
    "scan": ("doctor.cli.scan", "probe this node live (GPUs, topology, RDMA, kernel, network) and diagnose"),
    "collect": ("doctor.cli.collect", "gather this node's probe outputs into a bundle for `doctor analyze`"),
    "cluster": ("doctor.cli.cluster", "whole job: run on every rank (torchrun/srun), diagnose the job on rank 0"),
    "check": ("doctor.cli.check", "check this node (or a job) against a policy: exit 0 pass, 1 fail, 3 could not check"),
    "eval": ("doctor.cli.eval", "score the ranking on labelled cases; --folds K cross-validates, --fit writes rules/weights.yaml"),
    "util": ("doctor.cli.util", "sample GPU utilisation live through NVML and diagnose it"),
    "fleet": ("doctor.cli.fleet", "many jobs' uploads in one store: suspect nodes, a decision per job (ingest, report, tui)"),
}


def installed_version() -> str:
    """The version in the installed package's metadata; the source's own when run from a checkout."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("doctor")
    except PackageNotFoundError:
        return __version__


class _Version(argparse.Action):
    """--version: reads the package metadata only when asked (importlib.metadata is not free)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kw: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"doctor {installed_version()}")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for this command line: every verb listed, only the one named in argv given its arguments."""
    parser = _Parser(prog="doctor", description="Troubleshoot distributed GPU training: read the logs, name the cause.")
    parser.add_argument("--version", action=_Version)
    parser.add_argument("--traceback", action="store_true", help="show Python tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    verb = next((word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")), None)
    for name, (module, help_text) in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        cmd.set_defaults(_module=module)
        if name == verb:
            _arguments(module)(cmd)
    return parser


def _arguments(module: str) -> Callable[[argparse.ArgumentParser], None]:
    return importlib.import_module(module).add_arguments  # type: ignore[no-any-return]


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return ExitCode.USAGE
    signal.signal(signal.SIGTERM, _terminated)      # unwind, so that temporary folders are removed
    try:
        return int(importlib.import_module(args._module).run(args))
    except DoctorError as err:
        if args.traceback:
            raise
        print(f"doctor: {printable(' '.join(str(err).splitlines()))}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("doctor: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as err:  # noqa: BLE001 - the last line of defence: one line, never a traceback
        if args.traceback:
            raise
        print(f"doctor: internal error: {err.__class__.__name__}: {printable(str(err))} (run with --traceback for details)",
              file=sys.stderr)
        return 4
