"""Lines that look like an error, whatever wrote them: what is left when no rule explains an input."""
from __future__ import annotations

from doctor.facts.base import Fact, fact


@fact
class ErrorLine(Fact):
    """An error-looking line (NCCL WARN, a Python exception, `Error:`/`failed`/`FATAL`): the report lists those no
    rule consumed. form: nccl_warn | exception | error | failed | signal."""

    KIND = "log.error_line"
    form: str = ""
    text: str = ""
