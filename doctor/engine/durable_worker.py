"""The durable_rules session, in a child process of its own (started by doctor/engine/durable.py).

durable_rules' C engine can crash (a segmentation fault in assert_fact was seen in the test run), and a crash
must not take `doctor` or the test run with it, so this is the only place its C code runs. The protocol is JSON,
one line each way, on stdin/stdout; the child imports nothing of doctor (run by path with -P, so
that this folder, which holds a durable.py, is not on its sys.path), so it starts in
the time python and durable_rules take to import, and one child serves every run of its parent.

    request:  {"definition": {ruleset...}, "aliases": [[alias, ...] per rule], "messages": [message, ...]}
    answer:   {"hits": [[rule index, [fact number bound to each alias]], ...]}  or  {"error": "one line"}

How the known traps of durable_rules 2.0.28 are handled here:
- Global state: every run gets its own Host and a ruleset name used once, and deletes its C session
  state and ruleset afterwards (after a first no-op action: see START_RULE). The stock Host starts two
  self-re-arming timer threads that never stop; this Host does not: every action runs synchronously inside
  assert_fact, so nothing is left for a background dispatcher.
- assert_facts (batch) returns before its actions ran: facts are asserted one by one.
- Unmatched facts raise MessageNotHandledException: such a fact is ignored. Duplicates raise
  MessageObservedException: every message has a unique id (the parent numbers them).
- Exceptions inside actions are swallowed into the session state: the state is checked after each assert.
"""
from __future__ import annotations

import itertools
import json
import sys
from typing import Any, Callable

SID = "1"                            # one session per ruleset, and one ruleset per run
# The session's first action. durable never initialises a new session's action context
# (createStateNode, state.c), so delete_state would free two garbage pointers (valgrind: invalid
# free in deleteStateNode) and corrupt the heap; any completed action sets them to NULL.
START_RULE = "doctor_session_start"
START_MESSAGE = {"id": "start", "kind": "doctor.session_start", "dr__role": "start"}
Hit = tuple[int, tuple[int, ...]]


def main() -> int:
    import durable_rules_engine
    from durable import engine

    class SynchronousHost(engine.Host):
        """A Host whose actions run inside assert_fact; no dispatcher or timer threads."""

        def _run(self) -> None:
            return None

    names = itertools.count(1)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer: dict[str, Any] = {"hits": sorted(session(engine, durable_rules_engine, SynchronousHost(),
                                                             f"doctor_{next(names)}", request))}
        except Exception as exc:  # noqa: BLE001 - reported to the parent as one line
            answer = {"error": f"{exc.__class__.__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


def session(engine: Any, native: Any, host: Any, name: str, request: dict[str, Any]) -> set[Hit]:
    """Assert every message of the request into a fresh ruleset; the (rule, facts) each action saw."""
    hits: set[Hit] = set()
    definition = {rule: dict(spec, run=_collector(index, request["aliases"][index], hits))
                  for index, (rule, spec) in enumerate(request["definition"].items())}
    definition[START_RULE] = {"all": [{"m": {"kind": START_MESSAGE["kind"]}}], "run": lambda c: None}
    host.set_rulesets({name: definition})
    try:
        for message in [START_MESSAGE, *request["messages"]]:
            _assert(engine, host, name, message)
    finally:
        handle = host.get_ruleset(name)._handle
        native.delete_state(handle, SID)
        native.delete_ruleset(handle)
    return hits


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


if __name__ == "__main__":
    sys.exit(main())
