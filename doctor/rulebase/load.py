"""Load rules/*.yaml into Rule objects, rejecting anything unknown with file:line."""
from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

import yaml

from doctor.errors import RuleError
from doctor.rulebase import cache
from doctor.facts import FACT_KINDS, field_names
from doctor.rulebase.model import OPERATORS, Condition, Pattern, Ref, Rule, RuleTest

RULES_DIR = Path(__file__).resolve().parents[2] / "rules"
_KEYS = {"id", "name", "cause", "symptoms", "confidence", "when", "unless", "title", "evidence", "fix", "next", "docs",
         "tests", "effect", "status"}
_ID = re.compile(r"^[A-Z]{2,6}\d{3}$")


class _LineDict(dict):
    line = 0


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml when PyYAML has it: 0.09 s instead of 0.55 s for the rule base, on every command."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> _LineDict:
    mapping = _LineDict(loader.construct_mapping(node, deep=True))
    mapping.line = node.start_mark.line + 1
    return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# Data files beside the rules, not rules: the cause table, the fitted weights, the symptoms' differentials.
NOT_RULES = ("causes.yaml", "weights.yaml", "differentials.yaml")
_DATA_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_data(path: Path) -> Any:
    """A data file of the project (causes, weights, differentials, known bugs) with libyaml's safe loader where PyYAML
    has it: every command reads them, and the pure-Python loader took 0.1 s of each run for weights.yaml alone."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_DATA_LOADER)  # noqa: S506 - a safe loader


def load_causes(path: Path | None = None) -> dict[str, dict[str, Any]]:
    data = read_data(path or RULES_DIR / "causes.yaml")
    return dict(data["causes"])


def load_rules(root: Path | None = None, causes: dict[str, dict[str, Any]] | None = None) -> list[Rule]:
    root = root or RULES_DIR
    causes = causes if causes is not None else load_causes(root / "causes.yaml")
    paths = [p for p in sorted(root.rglob("*.yaml"))     # rules/data/ holds tables rules use (known_bugs.yaml), no rules
             if not (p.parent == root and p.name in NOT_RULES) and p.relative_to(root).parts[0] != "data"]
    rules = [_Builder(path, data, causes).build() for path, data in zip(paths, _parsed(root, paths))]
    seen: dict[str, str] = {}
    for rule in rules:
        if rule.id in seen:
            raise RuleError(f"{rule.path}:1: duplicate rule id {rule.id} (also in {seen[rule.id]})")
        seen[rule.id] = rule.path
    return rules


def load_rule(path: Path, causes: dict[str, dict[str, Any]]) -> Rule:
    return _Builder(path, _parse(path, path.read_bytes()), causes).build()


def _parsed(root: Path, paths: list[Path]) -> list[_LineDict]:
    """Each file's mapping: from the JSON cache when the shipped rule base is unchanged (cache.py)."""
    texts = [path.read_bytes() for path in paths]
    if root != RULES_DIR:
        return [_parse(path, text) for path, text in zip(paths, texts)]
    name = cache.key([(str(path.relative_to(root)), text) for path, text in zip(paths, texts)])
    cached = cache.read(name)
    if isinstance(cached, list) and len(cached) == len(paths):
        return [_from_json(data) for data in cached]
    parsed = [_parse(path, text) for path, text in zip(paths, texts)]
    try:
        cache.write(name, [_to_json(data) for data in parsed])
    except TypeError:                 # a value JSON cannot hold as it is (a date, a number as key): no cache
        pass
    return parsed


def _parse(path: Path, text: bytes) -> _LineDict:
    try:
        data = yaml.load(text.decode("utf-8"), Loader=_Loader)  # noqa: S506 - safe: _Loader is a yaml.SafeLoader (or CSafeLoader) subclass
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        raise RuleError(f"{path}:{mark.line + 1 if mark else 1}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise RuleError(f"{path}:1: a rule file must hold one mapping")
    return data


def _to_json(value: Any) -> Any:
    """A mapping's line rides along as "__line__"; anything JSON would change raises TypeError."""
    if isinstance(value, dict):
        if not all(isinstance(k, str) and k != "__line__" for k in value):
            raise TypeError("a key JSON cannot hold")
        return {"__line__": getattr(value, "line", 0), **{k: _to_json(v) for k, v in value.items()}}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"{type(value).__name__} in a rule file")


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        mapping = _LineDict({k: _from_json(v) for k, v in value.items() if k != "__line__"})
        mapping.line = value.get("__line__", 0)
        return mapping
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


class _Builder:
    def __init__(self, path: Path, data: _LineDict, causes: dict[str, dict[str, Any]]) -> None:
        self.path, self.data, self.causes = path, data, causes
        self.aliases: dict[str, str] = {}

    def fail(self, where: Any, message: str) -> RuleError:
        line = getattr(where, "line", 0) or getattr(self.data, "line", 1)
        return RuleError(f"{self.path}:{line}: {message}")

    def build(self) -> Rule:
        d = self.data
        unknown = set(d) - _KEYS
        if unknown:
            raise self.fail(d, f"unknown key(s): {', '.join(sorted(unknown))}")
        for key in ("id", "name", "cause", "confidence", "when", "title", "fix", "docs"):
            if key not in d:
                raise self.fail(d, f"missing required key '{key}'")
        if not _ID.match(str(d["id"])):
            raise self.fail(d, f"rule id {d['id']!r} must look like NET003")
        if d["cause"] not in self.causes:
            raise self.fail(d, f"unknown cause {d['cause']!r} (not in rules/causes.yaml)")
        confidence = float(d["confidence"])
        if not 0 < confidence <= 1:
            raise self.fail(d, "confidence must be in (0, 1]")
        when = tuple(self.pattern(p, i) for i, p in enumerate(d["when"] or []))
        if not when:
            raise self.fail(d, "'when' needs at least one pattern")
        unless = tuple(self.pattern(p, i, bind=False) for i, p in enumerate(d.get("unless") or []))
        fix, docs = d["fix"], d["docs"]
        if not isinstance(fix, dict) or "summary" not in fix:
            raise self.fail(fix, "fix needs a summary")
        if not isinstance(docs, dict) or "why" not in docs:
            raise self.fail(docs, "docs needs 'why'")
        templates = [d["title"], *d.get("evidence", []), fix["summary"], *fix.get("steps", []), *d.get("next", [])]
        for text in templates:
            self.check_template(d, str(text))
        return Rule(
            id=d["id"], name=d["name"], cause=d["cause"], symptoms=tuple(d.get("symptoms") or ()),
            confidence=confidence, when=when, unless=unless, title=d["title"],
            evidence=tuple(d.get("evidence") or ()), fix_summary=fix["summary"], fix_steps=tuple(fix.get("steps") or ()),
            next_checks=tuple(d.get("next") or ()), why=str(docs["why"]).strip(),
            exceptions=str(docs.get("exceptions", "")).strip(), references=tuple(docs.get("references") or ()),
            effect=d.get("effect", "support"), tests=tuple(self.test(t) for t in d.get("tests") or ()),
            path=str(self.path), extra={"status": d.get("status", "stable")})

    def pattern(self, raw: Any, index: int, bind: bool = True) -> Pattern:
        if not isinstance(raw, dict) or "fact" not in raw:
            raise self.fail(raw, f"pattern {index + 1} needs 'fact'")
        kind = raw["fact"]
        if kind not in FACT_KINDS:
            raise self.fail(raw, f"unknown fact kind {kind!r}")
        alias = raw.get("as", f"_{kind.replace('.', '_')}{index}")
        names = field_names(FACT_KINDS[kind])
        conditions = []
        for name, spec in (raw.get("where") or {}).items():
            if name not in names:
                raise self.fail(raw, f"{kind} has no field {name!r} (fields: {', '.join(names)})")
            conditions.extend(self.conditions(raw, name, spec))
        if bind:
            self.aliases[alias] = kind
        return Pattern(kind=kind, alias=alias, conditions=tuple(conditions))

    def conditions(self, where: Any, name: str, spec: Any) -> list[Condition]:
        """A literal means eq; a mapping holds one or more operators that must all hold ({ge: 8, lt: 60})."""
        if not isinstance(spec, dict):
            return [Condition(name, "eq", spec)]
        if not spec:
            raise self.fail(where, f"condition on {name!r} has no operator")
        return [self.condition(where, name, op, value) for op, value in spec.items()]

    def condition(self, where: Any, name: str, op: str, value: Any) -> Condition:
        if op == "ref":
            return Condition(name, "eq", self.ref(where, value))
        if op not in OPERATORS:
            raise self.fail(where, f"unknown operator {op!r} (known: {', '.join(OPERATORS)}, ref)")
        if isinstance(value, dict) and "ref" in value:
            value = self.ref(where, value["ref"])
        if op == "any_of":
            value = tuple(value)
        if op == "matches":
            re.compile(value)
        return Condition(name, op, value)

    def ref(self, where: Any, text: str) -> Ref:
        alias, _, name = str(text).partition(".")
        if alias not in self.aliases:
            raise self.fail(where, f"ref to unknown alias {alias!r}")
        if name not in field_names(FACT_KINDS[self.aliases[alias]]):
            raise self.fail(where, f"ref to unknown field {text!r}")
        return Ref(alias, name)

    def check_template(self, where: Any, text: str) -> None:
        for _, field_name, _, _ in string.Formatter().parse(text):
            if not field_name:
                continue
            alias, _, name = field_name.partition("|")[0].partition(".")
            if alias not in self.aliases:
                raise self.fail(where, f"template {text!r} names unknown alias {alias!r}")
            if name and name != "origin" and name not in field_names(FACT_KINDS[self.aliases[alias]]):
                raise self.fail(where, f"template {text!r} names unknown field {field_name!r}")

    def test(self, raw: Any) -> RuleTest:
        if not isinstance(raw, dict) or raw.get("expect") not in ("fires", "quiet"):
            raise self.fail(raw, "a test needs expect: fires|quiet")
        facts = tuple(raw.get("facts") or ())
        for fact in facts:
            if fact.get("kind") not in FACT_KINDS:
                raise self.fail(raw, f"test fact of unknown kind {fact.get('kind')!r}")
        if raw.get("policy") and not raw.get("input"):
            raise self.fail(raw, "a test with a policy needs an input to judge")
        return RuleTest(name=str(raw.get("name", "")), expect=raw["expect"], input=str(raw.get("input", "")), facts=facts,
                        policy=str(raw.get("policy", "")))
