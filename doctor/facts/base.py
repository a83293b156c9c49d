"""The fact contract: a frozen, typed record of one observation, with where it came from."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a fact was read: a file or command, and the line that convicted it."""

    source: str = ""          # file path (or path inside an archive) or the command line
    line: int = 0             # 1-based line number, 0 when not line-based
    text: str = ""            # the line itself, trimmed to a readable length
    probe: str = ""           # name of the probe/parser that produced the fact
    mode: str = "file"        # "file" (uploaded artifact) or "live" (this node, now)

    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source

    def __str__(self) -> str:
        return self.where()


NO_ORIGIN = Origin()


@dataclass(frozen=True, kw_only=True, slots=True)
class Fact:
    """Base of every fact. Subclasses set KIND and add typed fields with defaults."""

    KIND: ClassVar[str] = ""
    node: str = ""            # host name (or the input's node label when the log has none)
    rank: int = -1            # global rank, -1 when unknown
    origin: Origin = field(default=NO_ORIGIN, compare=False)

    def get(self, name: str) -> Any:
        return getattr(self, name)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.KIND}
        for f in fields(self):
            if f.name != "origin":
                value = getattr(self, f.name)
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def field_names(cls: type[Fact]) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name != "origin")


def field_types(cls: type[Fact]) -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(cls) if f.name != "origin"}
