"""The parsed rule files kept as JSON between runs: building them from YAML costs every command
0.07 s, reading this 2 ms.

The key is the SHA-256 of every rule file's name and bytes (and of this format and PyYAML's
version), so an edited, added or removed rule is never served stale; a new key replaces the old
file. The folder is $DOCTOR_CACHE_DIR, else $XDG_CACHE_HOME/doctor, else ~/.cache/doctor;
DOCTOR_CACHE_DIR=off turns it off. A cache that cannot be read or written is no cache: the YAML
is parsed as before, and nothing is ever reported about it.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

FORMAT = 1


def cache_dir() -> Path | None:
    chosen = os.environ.get("DOCTOR_CACHE_DIR", "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "doctor"


def key(files: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256(f"doctor-rules/{FORMAT}/{yaml.__version__}\n".encode())
    for name, data in files:
        digest.update(b"%d:%s\n%d:" % (len(name), name.encode(), len(data)))
        digest.update(data)
    return digest.hexdigest()[:32]


def read(name: str) -> Any | None:
    folder = cache_dir()
    try:
        return json.loads((folder / f"rules-{name}.json").read_text(encoding="utf-8")) if folder else None
    except (OSError, ValueError):
        return None


def write(name: str, data: Any) -> None:
    """Atomically, and the cached rule bases of other keys removed."""
    folder = cache_dir()
    if folder is None:
        return
    temporary = None
    try:
        text = json.dumps(data, separators=(",", ":"))
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".rules-", suffix=".tmp", delete=False,
                                         encoding="utf-8") as out:
            temporary = out.name
            out.write(text)
        os.replace(temporary, folder / f"rules-{name}.json")
        temporary = None
        for old in folder.glob("rules-*.json"):
            if old.name != f"rules-{name}.json":
                old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        return
    finally:
        if temporary:
            Path(temporary).unlink(missing_ok=True)
