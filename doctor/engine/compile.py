"""Rule -> durable_rules' JSON ruleset form, and Fact -> durable message. Pure: durable is not imported here.

The operator set maps one to one:

| rule            | durable condition                                   |
|-----------------|-----------------------------------------------------|
| literal / eq    | {field: value}                                      |
| ne lt le gt ge  | {"$neq"/"$lt"/"$lte"/"$gt"/"$gte": {field: value}}  |
| matches         | {"matches__<field>__<hash>": true} (see below)      |
| exists/missing  | {"$ex"/"$nex": {"has__field": 1}}                   |
| any_of          | {"$or": [{field: v1}, {field: v2}, ...]}            |
| ref alias.f     | {field: {alias: "f"}} (inside any operator)         |
| unless          | {"unless_N$not": ...} (durable's `none`)            |

Three choices keep durable's answers identical to the native matcher's:
- Presence: native `exists` means "not '', -1, 0 or None" (conditions._present). Each message carries
  a `has__<field>: 1` marker for every present field, and `exists` tests the marker.
- Negation order: durable does not withdraw a match when a negating fact arrives later. Every fact is
  therefore sent twice, in two roles: `dr__role: n` copies (what `unless` patterns see) all go in first,
  then the `dr__role: w` copies (what `when` patterns see), one by one.
- Types: durable compares a string with a number as text; Python says they differ. A rule that
  compares a field with a literal or ref of another type is refused here (it never fires natively),
  and so is a fact whose value does not have its field's declared type, or is NaN.
- Regexes: durable's `$mt` is a whole-value match on its own DFA, and that DFA is wrong for search
  patterns: `.*(aaaa).*` rejects "aaaaaba", `.*(c+..).*` rejects "cbc", `.*(nccl|torch).*` rejects
  "nccl (runtime)" (2.0.28, seen while writing this backend). So `matches` is evaluated by Python's
  `re`, exactly as the native matcher does (conditions.holds), when the fact is turned into a
  message: the message carries `matches__<field>__<hash of pattern>: true|false`, and the rule
  tests that flag. The join, negation and comparison logic, which is what the differential test
  cross-checks, stays durable's own.
"""
from __future__ import annotations

import hashlib
import math
import sys
from functools import lru_cache
from typing import Any

from doctor.engine.conditions import _present as present
from doctor.engine.conditions import holds
from doctor.errors import DoctorError, RuleError
from doctor.facts import FACT_KINDS, Fact, field_types
from doctor.rulebase.model import Condition, Pattern, Ref, Rule


class FactTypeError(DoctorError):
    """A fact field holds a value of another type than its declaration (a probe or rule-test bug)."""


WHEN, UNLESS = "w", "n"
ROLE = "dr__role"                                  # no fact field starts with dr__
RESERVED = ("id", "sid", "kind", ROLE)
PRESENT = "has__"
NEVER: dict[str, Any] = {"$nex": {"kind": 1}}      # every message has a kind, so this never holds
_COMPARE = {"ne": "$neq", "lt": "$lt", "le": "$lte", "gt": "$gt", "ge": "$gte"}
_CATEGORY = {"str": "str", "int": "number", "float": "number", "bool": "bool"}


def category(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "str" if isinstance(value, str) else type(value).__name__


@lru_cache(maxsize=None)
def _declared(kind: str) -> dict[str, str]:
    return {name: _CATEGORY.get(text, "") for name, text in field_types(FACT_KINDS[kind]).items()}


def declared(kind: str, name: str) -> str:
    """'str', 'number' or 'bool' as the fact class declares the field; '' for any other type."""
    return _declared(kind).get(name, "")


def compile_rules(rules: list[Rule]) -> dict[str, dict[str, Any]]:
    """{rule name: durable rule}, in the order given; names are rule ids (made unique)."""
    out: dict[str, dict[str, Any]] = {}
    for rule in rules:
        name = rule.id if rule.id not in out else f"{rule.id}_{len(out)}"
        out[name] = compile_rule(rule)
    return out


def compile_rule(rule: Rule) -> dict[str, Any]:
    kinds = {p.alias: p.kind for p in rule.when}
    terms: list[dict[str, Any]] = [{p.alias: _pattern(rule, p, WHEN, kinds)} for p in rule.when]
    for number, pattern in enumerate(rule.unless):
        terms.append({f"unless_{number}$not": _pattern(rule, pattern, UNLESS, kinds)})
    return {"all": terms, "dist": 0}   # dist 0: one fact may bind two aliases, as natively


def _pattern(rule: Rule, pattern: Pattern, role: str, kinds: dict[str, str]) -> dict[str, Any]:
    tests = [{"kind": pattern.kind}, {ROLE: role}]
    tests.extend(_condition(rule, pattern.kind, c, kinds) for c in pattern.conditions)
    return {"$and": tests}


def _condition(rule: Rule, kind: str, cond: Condition, kinds: dict[str, str]) -> dict[str, Any]:
    name, op, value = cond.field, cond.op, cond.value
    if op in ("exists", "missing"):
        wanted = bool(value) if op == "exists" else not value
        return {"$ex" if wanted else "$nex": {PRESENT + name: 1}}
    field_type = declared(kind, name)
    if op == "matches":
        return {regex_key(name, value): True}
    if op == "any_of":
        for item in value:
            _check_type(rule, kind, name, field_type, category(item), repr(item))
        return {"$or": [{name: item} for item in value]} if value else NEVER
    if isinstance(value, Ref):
        _check_type(rule, kind, name, field_type, declared(kinds[value.alias], value.field), f"{value.alias}.{value.field}")
        right: Any = {value.alias: value.field}
    else:
        _check_type(rule, kind, name, field_type, category(value), repr(value))
        right = value
    return {name: right} if op == "eq" else {_COMPARE[op]: {name: right}}


def regex_key(name: str, pattern: str) -> str:
    return f"matches__{name}__{hashlib.sha1(pattern.encode()).hexdigest()[:10]}"


def regex_tests(rules: list[Rule]) -> dict[str, list[Condition]]:
    """Per fact kind, the `matches` conditions whose answers its messages must carry."""
    out: dict[str, list[Condition]] = {}
    for rule in rules:
        for pattern in (*rule.when, *rule.unless):
            for cond in pattern.conditions:
                if cond.op == "matches" and cond not in out.get(pattern.kind, []):
                    out.setdefault(pattern.kind, []).append(cond)
    return out


def _check_type(rule: Rule, kind: str, name: str, field_type: str, other: str, shown: str) -> None:
    if field_type and other and other != field_type and other != "NoneType":
        raise RuleError(f"{rule.path}:1: {rule.id}: {kind}.{name} is a {field_type} field but is compared with "
                        f"{shown} ({other}); the comparison can never hold")


def fact_message(fact: Fact, number: int, role: str, regexes: list[Condition] = ()) -> dict[str, Any]:
    """One fact as a durable message: fields, presence markers, regex answers, kind, role, a unique id."""
    message: dict[str, Any] = {"id": f"{role}{number}", "kind": fact.KIND, ROLE: role}
    for name, value in fact.as_dict().items():
        if name in RESERVED:
            continue
        _check_value(fact, name, value)
        message[name] = _json_value(value)
        if present(value):
            message[PRESENT + name] = 1
    for cond in regexes:
        message[regex_key(cond.field, cond.value)] = holds(cond, fact, {})
    return message


def _check_value(fact: Fact, name: str, value: Any) -> None:
    expected, actual = declared(fact.KIND, name), category(value)
    where = f"{fact.origin.where() or '<fact>'}: {fact.KIND}.{name}"
    if expected and actual != expected and value is not None:
        raise FactTypeError(f"{where} = {value!r} is a {actual}, declared {expected}; "
                            "the durable engine compares only values of the declared type")
    if isinstance(value, float) and math.isnan(value):
        raise FactTypeError(f"{where} is NaN, which durable cannot compare (its joins fail on it)")


def _json_value(value: Any) -> Any:
    """JSON has no infinity: the largest float keeps every comparison with a finite number."""
    if isinstance(value, float) and math.isinf(value):
        return math.copysign(sys.float_info.max, value)
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return value


def check_fields(kinds: set[str]) -> None:
    """Fact fields must not collide with the message's own keys."""
    for kind in kinds:
        clash = set(field_types(FACT_KINDS[kind])) & set(RESERVED)
        if clash or any(n.startswith(PRESENT) for n in field_types(FACT_KINDS[kind])):
            raise RuleError(f"fact kind {kind} has field(s) {sorted(clash)} reserved by the durable engine")
