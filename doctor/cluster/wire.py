"""Facts on the wire between ranks: JSON dicts (Fact.as_dict() plus origin), never pickle.

A payload from another rank is data, not code: unknown kinds and fields are dropped and counted, a value
of the wrong type drops its fact, and a payload above MAX_PAYLOAD is refused, so one broken or newer rank
cannot crash or flood rank 0.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from doctor.facts import FACT_KINDS, Fact, Origin

MAX_PAYLOAD = 4 * 2**20            # bytes of JSON per rank
MAX_FACTS = 5000                   # per rank
_ORIGIN_FIELDS = ("source", "line", "text", "probe", "mode")


def fact_to_dict(fact: Fact) -> dict[str, Any]:
    out = fact.as_dict()
    o = fact.origin
    out["origin"] = {"source": o.source, "line": o.line, "text": o.text, "probe": o.probe, "mode": o.mode}
    return out


def encode(rank: int, node: str, facts: list[Fact]) -> bytes:
    """One rank's payload. Facts beyond MAX_FACTS are cut (the count says so)."""
    body = {"schema": "doctor.facts/1", "rank": rank, "node": node, "total": len(facts),
            "facts": [fact_to_dict(f) for f in facts[:MAX_FACTS]]}
    return json.dumps(body, separators=(",", ":"), default=str).encode()


@dataclass
class Decoded:
    rank: int
    node: str
    facts: list[Fact]
    dropped: int = 0               # facts that could not be read back (unknown kind, bad field)
    error: str = ""                # why the whole payload was refused


def decode(data: bytes) -> Decoded:
    if len(data) > MAX_PAYLOAD:
        return Decoded(-1, "", [], error=f"payload of {len(data)} bytes is above {MAX_PAYLOAD}")
    try:
        body = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Decoded(-1, "", [], error=f"not a JSON payload: {exc}")
    if not isinstance(body, dict) or body.get("schema") != "doctor.facts/1" or not isinstance(body.get("facts"), list):
        return Decoded(-1, "", [], error="not a doctor.facts/1 payload")
    out = Decoded(_int(body.get("rank")), str(body.get("node", "")), [])
    for item in body["facts"][:MAX_FACTS]:
        fact = fact_from_dict(item)
        if fact is None:
            out.dropped += 1
        else:
            out.facts.append(fact)
    return out


def fact_from_dict(item: Any) -> Fact | None:
    """The fact a dict describes, or None when it is not a known kind with well-typed fields."""
    if not isinstance(item, dict):
        return None
    cls = FACT_KINDS.get(str(item.get("kind")))
    if cls is None:
        return None
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name == "origin" or f.name not in item:
            continue
        value = _typed(item[f.name], str(f.type))
        if value is _BAD:
            return None
        values[f.name] = value
    return cls(origin=_origin(item.get("origin")), **values)


_BAD = object()


def _typed(value: Any, annotation: str) -> Any:
    """value converted to the field's declared type (bool, int, float, str); _BAD when it cannot be."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation == "bool":
        return value if isinstance(value, bool) else _BAD
    if annotation == "int":
        return int(value) if number and float(value).is_integer() and abs(value) < 2**63 else _BAD
    if annotation == "float":
        return float(value) if number else _BAD
    if annotation == "str":
        return value[:4096] if isinstance(value, str) else _BAD
    return _BAD


def _origin(raw: Any) -> Origin:
    if not isinstance(raw, dict):
        return Origin()
    values = {k: raw[k] for k in _ORIGIN_FIELDS if k in raw}
    line = values.get("line", 0)
    values["line"] = line if isinstance(line, int) and not isinstance(line, bool) else 0
    return Origin(**{k: (str(v)[:400] if k != "line" else v) for k, v in values.items()})


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1
