"""Facts about the gathering itself: what each probe or parser could and could not read."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class ProbeStatus(Fact):
    """status: ok | skipped | failed. Absence and breakage are facts too."""

    KIND = "probe.status"
    probe: str = ""
    status: str = "ok"
    reason: str = ""
