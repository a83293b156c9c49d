"""One job's upload: its content key, job id, time span and node list, read from the files themselves.

The key is a SHA-256 over every file's path inside the upload and its bytes, so a folder and a .tar.gz of
the same folder are the same job, and the same upload ingested twice is stored once. Archives are unpacked
by doctor/probing/inputs.py (safe names, size caps); only each file's head is searched for identity lines.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from doctor.fleet.hostlist import expand as expand_hostlist
from doctor.probing.hosts import hosts_named
from doctor.probing.inputs import Workspace, expand, read_head

JOB_MANIFEST = "doctor-job.json"      # optional: {"job": "...", "nodes": [...], "start": ISO, "end": ISO}
NODE_MANIFEST = "doctor-manifest.json"  # written by `doctor collect`: {"node": ..., "created": ISO}
HEAD = 256 * 1024
MAX_NODES = 10_000

# identity lines: name -> pattern; the first group is the value
_PATTERNS: dict[str, re.Pattern[str]] = {
    "job": re.compile(r"\bSLURM_JOB_?ID=(\d+)"),
    "run": re.compile(r"\bTORCHELASTIC_RUN_ID=([\w.-]+)"),
    "nodelist": re.compile(r"\bSLURM_(?:JOB_)?NODELIST=([\w.\-\[\],]+)"),
    "host": re.compile(r"\bhost(?:name)?=([A-Za-z][\w.-]*)"),
    "time": re.compile(r"\b(20\d\d-\d\d-\d\d[T ]\d\d:\d\d:\d\d)"),
}


@dataclass
class Upload:
    path: str
    key: str
    job: str
    nodes: list[str] = field(default_factory=list)
    started: float | None = None      # unix seconds, from the logs' timestamps or a manifest
    ended: float | None = None
    file_hosts: dict[str, str] = field(default_factory=dict)   # file label -> the one host its content names


def read_upload(path: str) -> Upload:
    """Identity of one upload. Raises InputError (doctor/errors.py) for a missing or unreadable path."""
    workspace = Workspace()
    try:
        files = [f for f in expand([path], workspace) if not f.skipped]
        names = _inner_names([f.label for f in files], path)
        digest = hashlib.sha256()
        found: dict[str, set[str]] = {name: set() for name in _PATTERNS}
        manifest: dict = {}
        file_hosts: dict[str, str] = {}
        for inner, item in sorted(zip(names, files), key=lambda pair: pair[0]):
            digest.update(inner.encode() + b"\0")
            _hash_file(item.path, digest)
            name = inner.rsplit("/", 1)[-1]
            if name in (JOB_MANIFEST, NODE_MANIFEST):
                manifest = _merge_manifest(manifest, item.path)
            else:
                text = read_head(item, HEAD).decode("utf-8", "replace")
                _search(text, found)
                named = hosts_named(text) | set(_PATTERNS["host"].findall(text))
                if len(named) == 1:
                    file_hosts[item.label] = named.pop()
    finally:
        workspace.remove()
    upload = _identity(path, digest.hexdigest(), found, manifest)
    upload.file_hosts = file_hosts
    return upload


def _inner_names(labels: list[str], root: str) -> list[str]:
    """Each file's path inside the upload, less a folder every file shares (a bundle of `job/` is `job`'s files)."""
    names = [_inner(label, root) for label in labels]
    tops = {name.split("/", 1)[0] for name in names}
    if len(tops) == 1 and all("/" in name for name in names):
        names = [name.split("/", 1)[1] for name in names]
    return names


def _inner(label: str, root: str) -> str:
    """The file's path inside the upload: what the key hashes, so the same files hash the same wherever they lie."""
    if ":" in label and label.startswith(root):
        return label[len(root) + 1:]
    inner = label[len(root.rstrip("/")):].lstrip("/")
    return inner or os.path.basename(label)


def _hash_file(path: Path, digest: "hashlib._Hash") -> None:
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)


def _search(text: str, found: dict[str, set[str]]) -> None:
    for name, pattern in _PATTERNS.items():
        found[name].update(pattern.findall(text))


def _merge_manifest(manifest: dict, path: Path) -> dict:
    try:
        data = json.loads(path.read_bytes()[:HEAD])
    except ValueError:
        return manifest
    if not isinstance(data, dict):
        return manifest
    merged = dict(manifest)
    nodes = list(merged.get("nodes", []))
    if isinstance(data.get("node"), str):
        nodes.append(data["node"])
    if isinstance(data.get("nodes"), list):
        nodes.extend(data["nodes"])
    merged["nodes"] = nodes
    for name in ("job", "start", "end", "created"):
        if isinstance(data.get(name), (str, int)):
            merged[name] = data[name]
    return merged


def _identity(path: str, key: str, found: dict[str, set[str]], manifest: dict) -> Upload:
    job = str(manifest.get("job") or min(found["job"], default="") or min(found["run"], default="")
              or Path(path.rstrip("/")).name.split(".")[0] or key[:12])
    nodes = {str(n) for n in manifest.get("nodes", []) if isinstance(n, (str, int))}
    for text in found["nodelist"]:
        nodes.update(expand_hostlist(text))
    nodes.update(found["host"])
    times = [t for t in (_unix(manifest.get(k)) for k in ("start", "end", "created")) if t is not None]
    times += [t for t in (_unix(text) for text in found["time"]) if t is not None]
    return Upload(path=path, key=key, job=job[:200], nodes=sorted(nodes)[:MAX_NODES],
                  started=min(times, default=None), ended=max(times, default=None))


def _unix(text: object) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()
