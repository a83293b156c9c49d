"""Known bugs of the versions in the input: rules/data/known_bugs.yaml against the versions and failure lines read.

One aggregator (a row of doctor.aggregate.AGGREGATORS): for each table entry, a version of its component in
[affected_from, fixed) plus a failure fact whose line matches the entry's symptom gives a version.known_bug fact
quoting that line. An entry marked `signature` (a line only the affected releases print) gives one too where the
input names no version of the component at all, its version left empty (BUG002 reads it; a version outside the
range still rules the bug out). The table is data, reviewed in the diff; every entry names the maintainers' statement.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from doctor.facts import Fact
from doctor.facts.env import EnvVar, PackageVersion
from doctor.facts.hostconf import KnownBug
from doctor.facts.nccl import NcclError, NcclVersion
from doctor.probing.lines import version_num
from doctor.rulebase.load import read_data

TABLE = Path(__file__).resolve().parents[1] / "rules" / "data" / "known_bugs.yaml"
FAILURE_KINDS = ("nccl.error", "nccl.warn", "collective.timeout", "collective.stalled", "cuda.error", "sys.call_failed",
                 "nccl.device_limit")
_ENV_VERSION = re.compile(r"^\d+\.\d+\.\d+")
_FIELDS = ("id", "component", "affected_from", "fixed", "symptom", "summary", "workaround", "confirmed", "references")
_OPTIONAL = ("signature",)


@dataclass(frozen=True)
class Bug:
    id: str
    component: str
    affected_from: str
    fixed: str
    symptom: re.Pattern[str]
    summary: str
    workaround: str
    confirmed: str
    references: tuple[str, ...]
    signature: bool = False     # only the affected releases print the symptom line (its wording, its WARN level): it
                                # names the bug where the input gives no version

    def affects(self, version: str) -> bool:
        return version_num(self.affected_from) <= version_num(version) < version_num(self.fixed)


@lru_cache(maxsize=1)
def table(path: Path = TABLE) -> tuple[Bug, ...]:
    """The table, checked: every field present, a reference that is a URL, a regex that compiles."""
    data = read_data(path)
    bugs = []
    for entry in data["bugs"]:
        missing = [f for f in _FIELDS if not entry.get(f)]
        unknown = sorted(set(entry) - set(_FIELDS) - set(_OPTIONAL))
        if unknown:
            raise ValueError(f"{path}: entry {entry.get('id', '?')}: unknown field(s) {unknown}")
        if missing or not all(str(r).startswith("https://") for r in entry["references"]):
            raise ValueError(f"{path}: entry {entry.get('id', '?')}: missing {missing} or a reference that is no URL")
        bugs.append(Bug(**{**entry, "affected_from": str(entry["affected_from"]), "fixed": str(entry["fixed"]),
                           "symptom": re.compile(entry["symptom"]), "references": tuple(entry["references"]),
                           "signature": bool(entry.get("signature"))}))
    return tuple(bugs)


def _versions(facts: list[Fact], component: str) -> list[str]:
    if component != "nccl":
        return sorted({f.version for f in facts if isinstance(f, PackageVersion) and f.name == component})
    found = {f.version for f in facts if isinstance(f, NcclVersion)}
    found |= {f.version for f in facts if isinstance(f, PackageVersion) and "nccl" in f.name.lower()}
    found |= {f"{f.version_num // 10000}.{f.version_num // 100 % 100}.{f.version_num % 100}"
              for f in facts if isinstance(f, NcclError) and f.version_num > 0}
    # NGC and CUDA images set NCCL_VERSION (2.19.3, 2.19.3-1); DeepSpeed's launcher prints it
    found |= {m[0] for f in facts if isinstance(f, EnvVar) and f.name == "NCCL_VERSION"
              for m in [_ENV_VERSION.findall(f.value)] if m}
    return sorted(v.split("+")[0] for v in found)


def known_bugs(facts: list[Fact]) -> list[Fact]:
    failures = [f for f in facts if f.KIND in FAILURE_KINDS and f.origin.text]
    out: list[Fact] = []
    for bug in table():
        found = _versions(facts, bug.component)
        versions = [v for v in found if bug.affects(v)]
        line = next((f for f in failures if bug.symptom.search(f.origin.text)), None)
        if line is None or not (versions or (bug.signature and not found)):
            continue
        # no version of the component in the input: a signature line still names the bug, its version unknown ("")
        out.append(KnownBug(node=line.node, rank=line.rank, origin=line.origin, bug=bug.id, component=bug.component,
                            version=versions[0] if versions else "", affected_from=bug.affected_from, fixed=bug.fixed,
                            summary=bug.summary, workaround=bug.workaround, reference=bug.references[0]))
    return out
