"""A doctor bundle: the raw outputs of a node's live probes plus a manifest saying where each came from.

`doctor collect` writes one as .tar.gz; `doctor scan` writes one into a temporary folder and analyzes it,
so a scan on the node and `doctor analyze bundle.tar.gz` elsewhere run the very same parsing. The offline
reader recognises every file by content; the manifest adds what content cannot say: the node's name, the
parser for bare outputs (`ulimit -l` prints one number), and the probes that were skipped or failed.

doctor-manifest.json:
    {"schema": "doctor.bundle/1", "node": "gpu-node-7", "live": false, "probes": [
      {"probe": "nvidia_smi_topo", "parser": "topo_matrix", "argv": ["nvidia-smi", "topo", "-m"],
       "command": "nvidia-smi topo -m", "exit": 0, "duration_s": 0.41, "status": "ok", "reason": "",
       "file": "nvidia_smi_topo.txt", "stderr_file": ""}]}
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from doctor import __version__
from doctor.facts import Origin
from doctor.facts.status import ProbeStatus
from doctor.probing.inputs import InputFile
from doctor.probing.live import LiveResult

MANIFEST = "doctor-manifest.json"
SCHEMA = "doctor.bundle/1"
MAX_MANIFEST_BYTES = 2**20
_SAFE = re.compile(r"[^\w.\-]")


def write_dir(results: list[LiveResult], directory: Path, node: str, live: bool, redact: Any = None) -> Path:
    """Write every output (redacted by `redact`, a text -> text function) and the manifest into directory."""
    directory.mkdir(parents=True, exist_ok=True)
    entries = []
    for r in results:
        entry: dict[str, Any] = {"probe": r.probe.name, "parser": r.probe.parser, "argv": list(r.argv),
                                 "command": r.probe.label, "exit": r.exit, "duration_s": r.duration_s,
                                 "status": r.status, "reason": r.reason, "file": "", "stderr_file": ""}
        for key, text, name in (("file", r.stdout, r.probe.file), ("stderr_file", r.stderr, f"{r.probe.name}.stderr.txt")):
            if text.strip():
                (directory / name).write_text(redact(text) if redact else text, encoding="utf-8")
                entry[key] = name
        entries.append(entry)
    manifest = {"schema": SCHEMA, "node": node, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "doctor": __version__, "live": live, "probes": entries}
    path = directory / MANIFEST
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True)
class FileHint:
    parser: str               # DocumentProbe name to apply even if its sniff does not recognise the text
    node: str
    label: str                # how evidence names the file
    mode: str                 # live | file


@dataclass
class BundleHints:
    files: dict[str, FileHint] = field(default_factory=dict)     # by InputFile.label
    manifests: set[str] = field(default_factory=set)
    statuses: list[ProbeStatus] = field(default_factory=list)

    def apply(self, item: InputFile) -> tuple[InputFile, FileHint | None]:
        hint = self.files.get(item.label)
        if not hint:
            return item, None
        return InputFile(item.path, hint.label, hint.node, item.compressed), hint


def read_manifests(files: list[InputFile]) -> BundleHints:
    """Hints from every doctor manifest among the input files; anything malformed is simply not a manifest."""
    hints = BundleHints()
    for item in files:
        if PurePosixPath(item.label.replace(":", "/")).name != MANIFEST or item.compressed:
            continue
        data = _load(item.path)
        if not data:
            continue
        hints.manifests.add(item.label)
        _read_one(item, data, hints)
    return hints


def _load(path: Path) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("probes"), list):
        return None
    return data


def _read_one(item: InputFile, data: dict[str, Any], hints: BundleHints) -> None:
    prefix = item.label[: -len(MANIFEST)]
    node = _SAFE.sub("_", str(data.get("node") or item.node))[:100]
    live = data.get("live") is True
    for entry in data["probes"]:
        if not isinstance(entry, dict):
            continue
        probe, command = _SAFE.sub("_", str(entry.get("probe", "")))[:60], str(entry.get("command", ""))[:200]
        status = str(entry.get("status", ""))
        if status in ("ok", "skipped", "failed"):
            hints.statuses.append(ProbeStatus(node=node, probe=probe, status=status, reason=str(entry.get("reason", ""))[:300],
                                              origin=Origin(item.label, 0, command, "manifest", "live" if live else "file")))
        for key, parser, suffix in (("file", str(entry.get("parser", "")), ""), ("stderr_file", "", " (stderr)")):
            name = entry.get(key)
            if isinstance(name, str) and name and "/" not in name and ".." not in name:
                label = (command or probe) + suffix if live else prefix + name
                hints.files[prefix + name] = FileHint(parser[:60], node, label, "live" if live else "file")
