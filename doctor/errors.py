"""Errors that end a command with one clear line and a defined exit code."""
from __future__ import annotations


class DoctorError(Exception):
    """Base: the CLI prints str(err) on one line and exits with err.exit_code."""

    exit_code = 2


class UsageError(DoctorError):
    exit_code = 2


class InputError(DoctorError):
    """An input cannot be read: missing, binary, empty, too large, a hostile archive."""

    exit_code = 2


class RuleError(DoctorError):
    """A rule file is invalid; the message starts with file:line."""

    exit_code = 2


class CheckError(DoctorError):
    """A check could not be carried out (doctor check exit 3)."""

    exit_code = 3
