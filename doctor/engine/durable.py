"""The durable_rules backend (`--engine durable`): the only module that imports durable_rules, lazily.

It answers exactly what the native matcher answers (tests/engine/test_differential.py checks every
rule test through both), so it serves as a cross-check of the native engine, not as a faster one.

How the known traps of durable_rules 2.0.28 are handled:
- Crashes: every session runs in a child process (doctor/engine/isolated.py); a segfault there is one
  error line (exit 2) for `--engine durable` and one failed test in the differential test.
- Python 3.11 only: its C engine segfaults on 3.12 and does not import on 3.13, so other Pythons get
  a one-line UsageError (exit 2) instead of a crash.
- Global state: every run gets its own Host and a ruleset name used once, and deletes its C session
  state and ruleset afterwards (after a first no-op action: see START_RULE). The stock Host starts two self-re-arming timer threads that never stop (2 threads
  leaked per Host); this backend's Host does not start them: every action runs synchronously inside
  assert_fact, so nothing is left for a background dispatcher, and no run leaves a thread behind.
- assert_facts (batch) returns before its actions ran: facts are asserted one by one.
- Unmatched facts raise MessageNotHandledException: only kinds some rule names are sent, and a fact
  no rule wants is ignored. Duplicates raise MessageObservedException: every message has a unique id.
- Exceptions inside actions are swallowed into the session state: the state is checked after the run.
- Negation is not retroactive: see compile.py (all `unless` copies go in before any `when` copy).
- `$mt` (its regex) gives wrong answers for search patterns: see compile.py (Python's `re` decides).
"""
from __future__ import annotations

import itertools
import sys
import threading
from functools import lru_cache
from typing import Any, Callable

from doctor.engine import Finding
from doctor.engine.isolated import Worker
from doctor.engine.compile import ROLE, UNLESS, WHEN, check_fields, compile_rules, fact_message, regex_tests
from doctor.engine.native import MAX_FINDINGS_PER_RULE
from doctor.errors import UsageError
from doctor.facts import Fact
from doctor.rulebase.model import Rule

SUPPORTED_PYTHON = (3, 11)
CALLS_PER_CHILD = 100                # a fresh child after this many sessions (doctor/engine/isolated.py says why)
SID = "1"                            # one session per ruleset, and one ruleset per run
# The session's first action. durable never initialises a new session's action context
# (createStateNode, state.c), so delete_state would free two garbage pointers (valgrind: invalid
# free in deleteStateNode) and corrupt the heap; any completed action sets them to NULL.
START_RULE = "doctor_session_start"
START_MESSAGE = {"id": "start", "kind": "doctor.session_start", ROLE: "start"}
_LOCK = threading.Lock()             # durable's C engine keeps global handle tables: one run at a time
_NAMES = itertools.count(1)
Hit = tuple[int, tuple[int, ...]]    # (rule index, fact index bound to each `when` alias)


@lru_cache(maxsize=1)
def _durable() -> tuple[Any, Any, type]:
    """(durable.engine, the C module, a Host without background timers), imported on first use."""
    if sys.version_info[:2] != SUPPORTED_PYTHON:
        raise UsageError(f"--engine durable needs Python 3.11 (durable_rules 2.0.28 crashes on later versions); "
                         f"this is Python {sys.version_info[0]}.{sys.version_info[1]}: use --engine native")
    try:
        import durable_rules_engine
        from durable import engine
    except ImportError as exc:
        raise UsageError(f"--engine durable needs durable_rules ({exc}): pip install 'doctor[durable]'") from None

    class SynchronousHost(engine.Host):
        """A Host whose actions run inside assert_fact; no dispatcher or timer threads."""

        def _run(self) -> None:
            return None

    return engine, durable_rules_engine, SynchronousHost


def available() -> str:
    """'' when the durable engine can run here, else the reason it cannot."""
    try:
        _durable()
    except UsageError as err:
        return str(err)
    return ""


def run(rules: list[Rule], facts: list[Fact]) -> list[Finding]:
    """Findings of durable_rules, computed in a child process: a segfault of its C engine there becomes
    ChildCrashed (one line, exit 2) here instead of ending this process (doctor/engine/isolated.py)."""
    _durable()                        # a missing or unsupported durable_rules is a UsageError, said here
    check_fields({f.KIND for f in facts})
    hits = _worker().call(session_hits, rules, facts)
    return _findings(rules, facts, hits)


@lru_cache(maxsize=1)
def _worker() -> Worker:
    return Worker("durable", max_calls=CALLS_PER_CHILD)


def session_hits(rules: list[Rule], facts: list[Fact]) -> set[Hit]:
    """One durable session over the facts (runs in the child): the (rule, bound facts) pairs that fired."""
    engine, native, host_class = _durable()
    hits: set[Hit] = set()
    definition = {name: dict(spec, run=_collector(index, [p.alias for p in rules[index].when], hits))
                  for index, (name, spec) in enumerate(compile_rules(rules).items())}
    definition[START_RULE] = {"all": [{"m": {"kind": START_MESSAGE["kind"]}}], "run": lambda c: None}
    wanted = {WHEN: {p.kind for r in rules for p in r.when}, UNLESS: {p.kind for r in rules for p in r.unless}}
    regexes = regex_tests(rules)
    with _LOCK:
        host = host_class()
        name = f"doctor_{next(_NAMES)}"
        host.set_rulesets({name: definition})
        try:
            _assert(engine, host, name, START_MESSAGE)
            for role in (UNLESS, WHEN):
                for number, fact in enumerate(facts):
                    if fact.KIND in wanted[role]:
                        _assert(engine, host, name, fact_message(fact, number, role, regexes.get(fact.KIND, [])))
        finally:
            _release(native, host.get_ruleset(name)._handle)
    return hits


def _release(native: Any, handle: int) -> None:
    """Free the session's C state (facts, frames), then the C ruleset."""
    native.delete_state(handle, SID)
    native.delete_ruleset(handle)


def _collector(index: int, aliases: list[str], hits: set[Hit]) -> Callable[[Any], None]:
    def action(c: Any) -> None:
        bound = c._m                  # {alias: message}; c.<alias> would clash with Closure's own names
        hits.add((index, tuple(int(bound[alias]["id"][1:]) for alias in aliases)))
    return action


def _assert(engine: Any, host: Any, name: str, message: dict[str, Any]) -> None:
    try:
        state = host.assert_fact(name, dict(message, sid=SID))
    except engine.MessageNotHandledException:
        return                        # no rule can use this fact
    if isinstance(state, dict) and state.get("exception"):
        raise RuntimeError(f"durable rule action failed: {state['exception']}")


def _findings(rules: list[Rule], facts: list[Fact], hits: set[Hit]) -> list[Finding]:
    """Findings in the native matcher's order: rule order, then fact order alias by alias; capped the same."""
    out: list[Finding] = []
    for index, group in itertools.groupby(sorted(hits), key=lambda hit: hit[0]):
        rule = rules[index]
        for _, numbers in itertools.islice(group, MAX_FINDINGS_PER_RULE):
            out.append(Finding(rule, tuple((p.alias, facts[n]) for p, n in zip(rule.when, numbers))))
    return out
