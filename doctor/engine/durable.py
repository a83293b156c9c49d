"""The durable_rules backend (`--engine durable`): compiles rules and facts, and has a child process run them.

It answers exactly what the native matcher answers (tests/engine/test_differential.py checks every
rule test through both), so it serves as a cross-check of the native engine, not as a faster one.

durable_rules' C engine runs only in a child process (doctor/engine/durable_worker.py), one per `doctor`
process, started on first use and reused for every run: a crash in it (a segmentation fault inside
assert_fact was seen) ends that run with DurableCrash, one line and exit 2, and the next run starts a new
child. The child speaks JSON lines on stdin/stdout, so nothing is unpickled on either side.

How the known traps of durable_rules 2.0.28 are handled (the rest: see durable_worker.py):
- Python 3.11 only: its C engine segfaults on 3.12 and does not import on 3.13, so other Pythons get
  a one-line UsageError (exit 2) instead of a crash.
- Unmatched facts raise MessageNotHandledException: only kinds some rule names are sent. Duplicates raise
  MessageObservedException: every message has a unique id.
- Negation is not retroactive: see compile.py (all `unless` copies go in before any `when` copy).
- `$mt` (its regex) gives wrong answers for search patterns: see compile.py (Python's `re` decides).
"""
from __future__ import annotations

import atexit
import importlib.util
import itertools
import json
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from doctor.engine import Finding
from doctor.engine.compile import UNLESS, WHEN, check_fields, compile_rules, fact_message, regex_tests
from doctor.engine.native import MAX_FINDINGS_PER_RULE
from doctor.errors import DoctorError, UsageError
from doctor.facts import Fact
from doctor.rulebase.model import Rule

SUPPORTED_PYTHON = (3, 11)
WORKER = Path(__file__).with_name("durable_worker.py")
ANSWER_TIMEOUT_S = 300.0             # a run of the whole rule base over every rule test's facts takes ~2 s
# durable_rules' C state goes bad after some hundreds of rulesets in one process (a SIGSEGV in assert_fact at
# the ~390th run of the rule tests, every time in a long-lived child; at random places in one pytest process),
# releasing them or not: a child answers this many runs, then a new one takes over (starting one: ~0.3 s).
RUNS_PER_CHILD = 100
_LOCK = threading.Lock()             # one request at a time on the one child
Hit = tuple[int, tuple[int, ...]]    # (rule index, fact index bound to each `when` alias)


class DurableCrash(DoctorError):
    """The durable_rules child process died or stopped answering (exit 2)."""

    exit_code = 2


def available() -> str:
    """'' when the durable engine can run here, else the reason it cannot (nothing is imported)."""
    if sys.version_info[:2] != SUPPORTED_PYTHON:
        return (f"--engine durable needs Python 3.11 (durable_rules 2.0.28 crashes on later versions); "
                f"this is Python {sys.version_info[0]}.{sys.version_info[1]}: use --engine native")
    for module in ("durable_rules_engine", "durable"):
        if importlib.util.find_spec(module) is None:
            return f"--engine durable needs durable_rules (no module named {module!r}): pip install 'doctor[durable]'"
    return ""


def run(rules: list[Rule], facts: list[Fact]) -> list[Finding]:
    if reason := available():
        raise UsageError(reason)
    check_fields({f.KIND for f in facts})
    wanted = {WHEN: {p.kind for r in rules for p in r.when}, UNLESS: {p.kind for r in rules for p in r.unless}}
    regexes = regex_tests(rules)
    messages = [fact_message(fact, number, role, regexes.get(fact.KIND, []))
                for role in (UNLESS, WHEN) for number, fact in enumerate(facts) if fact.KIND in wanted[role]]
    request = {"definition": compile_rules(rules), "aliases": [[p.alias for p in r.when] for r in rules],
               "messages": messages}
    with _LOCK:
        answer = _Worker.current().ask(request)
    if "error" in answer:
        raise RuntimeError(f"durable engine: {answer['error']}")
    return _findings(rules, facts, {(index, tuple(numbers)) for index, numbers in answer["hits"]})


class _Worker:
    """The one durable_rules child of this process (replaced when it dies)."""

    _current: "_Worker | None" = None

    def __init__(self) -> None:
        self.runs = 0
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-P", str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, encoding="utf-8")

    @classmethod
    def current(cls) -> "_Worker":
        if cls._current is not None and cls._current.runs >= RUNS_PER_CHILD:
            stop_worker()
        if cls._current is None or cls._current.proc.poll() is not None:
            cls._current = cls()
        return cls._current

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.runs += 1
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], ANSWER_TIMEOUT_S)
            line = self.proc.stdout.readline() if ready else None
        except (BrokenPipeError, OSError):
            line = ""
        if line:
            return json.loads(line)       # type: ignore[no-any-return]
        raise DurableCrash(self._death(timed_out=line is None))

    def _death(self, timed_out: bool) -> str:
        """One line on how the child ended; the child is gone afterwards."""
        if timed_out:
            self.proc.kill()
        code = self.proc.wait()
        _Worker._current = None
        if timed_out:
            return f"the durable_rules engine did not answer within {ANSWER_TIMEOUT_S:.0f} s: use --engine native"
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            return f"the durable_rules engine crashed ({name} in its C code): use --engine native"
        self.stderr.seek(0)
        last = (self.stderr.read().decode("utf-8", "replace").strip().splitlines() or [""])[-1][:200]
        return f"the durable_rules engine exited with status {code} ({last or 'no message'}): use --engine native"

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()   # type: ignore[union-attr]
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()


def stop_worker() -> None:
    """End this process's durable_rules child (a later run starts a new one)."""
    if _Worker._current is not None:
        _Worker._current.close()
        _Worker._current = None


atexit.register(stop_worker)


def _findings(rules: list[Rule], facts: list[Fact], hits: set[Hit]) -> list[Finding]:
    """Findings in the native matcher's order: rule order, then fact order alias by alias; capped the same."""
    out: list[Finding] = []
    for index, group in itertools.groupby(sorted(hits), key=lambda hit: hit[0]):
        rule = rules[index]
        for _, numbers in itertools.islice(group, MAX_FINDINGS_PER_RULE):
            out.append(Finding(rule, tuple((p.alias, facts[n]) for p, n in zip(rule.when, numbers))))
    return out
