"""Fill a rule's text templates ({alias.field}) from the facts a finding bound.

A field the input did not give (no host in the line, no port) renders as "?". A part of a template written
as [[...]] is dropped whole when any field inside it is unknown, so "port[[ {err.port}]] is taken" reads
"port is taken" rather than "port ? is taken". A field may name what to print instead: {err.port|$MASTER_PORT}
(for a command the user runs, where a placeholder they can fill beats a "?").
"""
from __future__ import annotations

import re
import string
from typing import Any

from doctor.facts import Fact


class _View:
    def __init__(self, fact: Fact) -> None:
        self._fact = fact

    def __getattr__(self, name: str) -> Any:
        if name == "origin":
            return self._fact.origin.where()
        value = getattr(self._fact, name)
        if value == -1 or value == "":
            return "?"
        if isinstance(value, float):
            return _number(name, value)
        return value

    def __format__(self, spec: str) -> str:
        return format(self._fact.origin.where(), spec)


def _number(name: str, value: float) -> str:
    if name.endswith(("frac", "share")):
        return f"{value * 100:.0f}%"
    if abs(value) >= 2**20 and name not in ("timeout_s",):
        return f"{value / 2**30:.2f} GiB"
    return f"{value:g}"


class _Formatter(string.Formatter):
    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        field_name, _, default = field_name.partition("|")
        alias, _, name = field_name.partition(".")
        view = kwargs.get(alias)
        if view is None:
            return default or "?", field_name
        value = getattr(view, name) if name else view
        return (default if default and value == "?" else value), field_name


_FORMATTER = _Formatter()


_OPTIONAL = re.compile(r"\[\[(.*?)\]\]", re.S)


def _unknown_fields(part: str, views: dict[str, _View]) -> int:
    """How many {alias.field} in `part` the bound facts leave without a value (a field with a stand-in has one)."""
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(part) if name]
    except ValueError:
        return 1
    missing = 0
    for field in fields:
        if "|" in field:
            continue              # it names its own stand-in
        alias, _, name = field.partition(".")
        view = views.get(alias)
        try:
            missing += view is None or bool(name and getattr(view, name) == "?")
        except AttributeError:
            missing += 1
    return missing


def unknowns(text: str, bound: dict[str, Fact]) -> int:
    """How many fields of a template the bound facts do not give (what a title would leave out or show as '?')."""
    return _unknown_fields(text, {alias: _View(fact) for alias, fact in bound.items()})


def render(text: str, bound: dict[str, Fact]) -> str:
    views = {alias: _View(fact) for alias, fact in bound.items()}
    text = _OPTIONAL.sub(lambda m: "" if _unknown_fields(m.group(1), views) else m.group(1), text)
    try:
        return _FORMATTER.format(text, **views)
    except (AttributeError, ValueError, KeyError, IndexError):
        return text
