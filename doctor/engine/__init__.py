"""Inference: rules x facts -> findings. The native matcher is the default; durable-rules is optional."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from doctor.facts import Fact
from doctor.rulebase.model import Rule


@dataclass(frozen=True)
class Finding:
    """One way a rule's patterns matched: the rule and the fact bound to each alias."""

    rule: Rule
    bindings: tuple[tuple[str, Fact], ...]

    def bound(self) -> dict[str, Fact]:
        return dict(self.bindings)


ENGINES = ("native", "durable")


def run(rules: Iterable[Rule], facts: list[Fact], engine: str = "native") -> list[Finding]:
    if engine == "durable":
        from doctor.engine.durable import run as run_durable
        return run_durable(list(rules), facts)
    from doctor.engine.native import run as run_native
    return run_native(list(rules), facts)
