"""Reading values out of an uploaded JSON document, which may hold anything anywhere: the accessors every JSON probe
shares (nccl-tests -J, dcgmi diag -j, ncclras -f json, iperf3 --json, the NVML reader's files)."""
from __future__ import annotations

import json
from typing import Any


def json_list(value: Any) -> list[Any]:
    """A JSON array, or nothing where something else stands."""
    return value if isinstance(value, list) else []


def json_obj(value: Any) -> dict[str, Any]:
    """A JSON object, or an empty one where something else stands."""
    return value if isinstance(value, dict) else {}


def json_dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a JSON array (other members left out)."""
    return [v for v in json_list(value) if isinstance(v, dict)]


def fragment(obj: Any, limit: int = 300) -> str:
    """The compact JSON of a value, cut to `limit` characters: the evidence line of a fact read from a one-line file."""
    return json.dumps(obj, separators=(",", ":"))[:limit]
