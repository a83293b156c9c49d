"""The fact contract: a frozen, typed record of one observation, with where it came from."""
from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field, fields
from typing import Any, ClassVar, TypeVar


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
F = TypeVar("F", bound="Fact")


def fact(cls: type[F]) -> type[F]:
    """The decorator of every fact class: a keyword-only, slotted dataclass whose equality, hash, repr
    and immutability are Fact's own. dataclass() would write those for each of the ~180 classes too,
    compiling source each time: frozen=True alone doubled what importing the schema costs every command."""
    return dataclass(kw_only=True, slots=True, eq=False, repr=False)(cls)


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class Fact:
    """Base of every fact. Subclasses (declared with @fact) set KIND and add typed fields with defaults.
    Immutable once made: each field is set once, by __init__ (or by unpickling), and never again."""

    KIND: ClassVar[str] = ""
    node: str = ""            # host name (or the input's node label when the log has none)
    rank: int = -1            # global rank, -1 when unknown
    origin: Origin = field(default=NO_ORIGIN, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            object.__getattribute__(self, name)
        except AttributeError:              # a slot not set yet: __init__ (or unpickling) filling it in
            object.__setattr__(self, name, value)
            return
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        """As dataclass equality: the same class and equal fields, origin aside."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _compared(self) == _compared(other)

    def __hash__(self) -> int:
        return hash((self.__class__, _compared(self)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return f"{self.__class__.__qualname__}({shown})"

    def get(self, name: str) -> Any:
        return getattr(self, name)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.KIND}
        for f in fields(self):
            if f.name != "origin":
                value = getattr(self, f.name)
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


_COMPARED: dict[type, tuple[str, ...]] = {}


def _compared(item: Fact) -> tuple[Any, ...]:
    names = _COMPARED.get(item.__class__)
    if names is None:
        names = _COMPARED[item.__class__] = tuple(f.name for f in fields(item) if f.compare)
    return tuple(getattr(item, name) for name in names)


def field_names(cls: type[Fact]) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name != "origin")


def field_types(cls: type[Fact]) -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(cls) if f.name != "origin"}
