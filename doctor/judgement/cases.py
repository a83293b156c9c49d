"""The case base as doctor eval reads it, in both layouts:

  <root>/<id>/case.yaml + <root>/<id>/input/...        (fixtures/cases, the ../shared/corpus format)
  <root>/<name>/ + <root>/<name>.expected.yaml          (fixtures/incidents)

Each case is analysed once (files -> facts -> findings -> what the model sees); only the ranking is refitted.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from doctor.errors import DoctorError
from doctor.judgement.fit import Labelled
from doctor.judgement.model import CaseView

HEALTHY = "healthy"


@dataclass(frozen=True)
class Case:
    name: str
    path: Path                     # what `doctor analyze` is given
    cause: str                     # a taxonomy id or healthy
    accept: frozenset[str]         # cause + also_acceptable; empty when healthy

    @property
    def healthy(self) -> bool:
        return self.cause == HEALTHY


@dataclass(frozen=True)
class Analysed:
    case: Case
    view: CaseView
    unexplained_lines: int         # error lines no rule explains (doctor/judgement/unknowns.py)

    def labelled(self) -> Labelled:
        return Labelled(self.view, self.case.accept)


def _case(name: str, path: Path, label_file: Path) -> Case:
    try:
        label = yaml.safe_load(label_file.read_text(encoding="utf-8")) or {}
        cause = str(label["cause"])
    except (OSError, yaml.YAMLError, KeyError, TypeError) as err:
        raise DoctorError(f"{label_file}: not a case label ({err.__class__.__name__})") from None
    accept = frozenset() if cause == HEALTHY else frozenset({cause, *(label.get("also_acceptable") or [])})
    return Case(name, path, cause, accept)


def find_cases(paths: list[str]) -> list[Case]:
    """Every case under these paths (a case folder, an incident folder, or a folder of either), sorted by name."""
    found: dict[str, Case] = {}
    for text in paths:
        root = Path(text)
        if not root.is_dir():
            raise DoctorError(f"{text}: not a folder of cases")
        for case in _cases_in(root):
            found.setdefault(str(case.path), case)
    return sorted(found.values(), key=lambda c: c.name)


def _cases_in(root: Path) -> list[Case]:
    if (root / "case.yaml").is_file():
        return [_case(root.name, root / "input", root / "case.yaml")]
    beside = root.with_name(root.name + ".expected.yaml")
    if beside.is_file():
        return [_case(root.name, root, beside)]
    out = [_case(d.name, d / "input", d / "case.yaml") for d in sorted(root.iterdir()) if (d / "case.yaml").is_file()]
    for label in sorted(root.glob("*.expected.yaml")):
        folder = label.with_name(label.name.removesuffix(".expected.yaml"))
        if folder.is_dir():
            out.append(_case(folder.name, folder, label))
    return out


def analyse(case: Case) -> Analysed:
    """Files -> facts -> findings -> the model's view, with no symptom given (as a user uploading files)."""
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    from doctor.aggregate import aggregate
    from doctor.diagnose import rule_base
    from doctor.engine import run
    from doctor.judgement.unknowns import unexplained_lines
    from doctor.probing.offline import gather_files
    from doctor.rank import view
    rules, _ = rule_base()
    facts = aggregate(gather_files([str(case.path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    findings = run(rules, facts)
    return Analysed(case, view(findings, facts, None), len(unexplained_lines(facts, findings)))
