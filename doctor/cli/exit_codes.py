"""Exit codes, the same with and without --json."""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0            #: nothing found / every check passed
    FINDINGS = 1      #: diagnoses found / a check failed
    USAGE = 2         #: bad usage or unreadable input (one line on stderr)
    CANNOT_CHECK = 3  #: doctor check could not carry out a check
    INTERRUPTED = 130 #: Ctrl-C
