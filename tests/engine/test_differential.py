"""The native matcher cross-checked against durable_rules, and golden tests of the rule -> durable compiler.

Every rule's every test case goes through both engines and must give the same findings (same rule,
same fact bound to each alias, same order). The compiler tests are pure and run on every Python;
the durable runs skip where durable_rules cannot be imported (it needs Python 3.11).
Refresh the golden JSON after a deliberate compiler change:
    DOCTOR_REFRESH_GOLDEN=1 python -m pytest tests/engine/test_differential.py -k golden
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from functools import lru_cache
from pathlib import Path

import pytest
from doctor_cli import REPO, run_doctor

from doctor.diagnose import rule_base
from doctor.engine import Finding, run
from doctor.engine.compile import FactTypeError, compile_rule, fact_message
from doctor.engine.durable import available
from doctor.errors import RuleError
from doctor.facts import Fact
from doctor.facts.env import EnvVar
from doctor.facts.gpu import OomEvent
from doctor.facts.launch import ConnectError, IfnameError, Interface
from doctor.rulebase.load import load_rule
from doctor.rulebase.selftest import facts_for

GOLDEN = Path(__file__).parent / "golden"
RULES, CAUSES = rule_base()
CASES = [(rule, test) for rule in RULES for test in rule.tests]
DURABLE_MISSING = available()
needs_durable = pytest.mark.skipif(bool(DURABLE_MISSING), reason=f"durable engine unavailable: {DURABLE_MISSING}")


@lru_cache(maxsize=1)
def golden_rules() -> tuple:
    return tuple(load_rule(path, CAUSES) for path in sorted(GOLDEN.glob("*.yaml")))


def signature(findings: list[Finding], facts: list[Fact]) -> list[tuple[str, tuple[tuple[str, int], ...]]]:
    """(rule id, ((alias, index of the bound fact in the input), ...)) per finding, in engine order."""
    index = {id(f): i for i, f in enumerate(facts)}
    return [(f.rule.id, tuple((alias, index[id(fact)]) for alias, fact in f.bindings)) for f in findings]


def both(rules, facts: list[Fact]):
    return signature(run(rules, facts, "native"), facts), signature(run(rules, facts, "durable"), facts)


# ---- the compiler: pure, every Python ----

def test_every_rule_compiles_for_durable() -> None:
    for rule in RULES:
        compiled = compile_rule(rule)
        assert len(compiled["all"]) == len(rule.when) + len(rule.unless), rule.id
        json.dumps(compiled)


def pretty(compiled: dict) -> str:
    """The compiled rule as JSON, one condition per line."""
    terms = []
    for term in compiled["all"]:
        (name, test), = term.items()
        conditions = ",\n".join(f"    {json.dumps(c, ensure_ascii=False)}" for c in test["$and"])
        terms.append(f'  {{{json.dumps(name)}: {{"$and": [\n{conditions}\n  ]}}}}')
    rest = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in compiled.items() if k != "all")
    return '{"all": [\n' + ",\n".join(terms) + f"\n]{rest}}}\n"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.yaml")), ids=lambda p: p.stem)
def test_compiler_golden(path: Path) -> None:
    compiled = compile_rule(load_rule(path, CAUSES))
    expected = path.with_suffix(".json")
    if os.environ.get("DOCTOR_REFRESH_GOLDEN"):
        expected.write_text(pretty(compiled), encoding="utf-8")
    assert json.loads(pretty(compiled)) == compiled
    if not expected.exists():
        pytest.fail(f"no golden {expected.name}: write it with DOCTOR_REFRESH_GOLDEN=1, review it, commit it")
    assert json.loads(expected.read_text(encoding="utf-8")) == compiled, f"{expected.name} differs: refresh if deliberate"


def test_a_comparison_across_types_is_refused(tmp_path: Path) -> None:
    text = (GOLDEN / "GOLD001-every-comparison.yaml").read_text().replace("port: {ge: 1024", "port: {ge: '1024'")
    (tmp_path / "GOLD001-every-comparison.yaml").write_text(text)
    with pytest.raises(RuleError, match=r"GOLD001-every-comparison.yaml:1: GOLD001: net.connect_error.port is a number"):
        compile_rule(load_rule(tmp_path / "GOLD001-every-comparison.yaml", CAUSES))


def test_a_fact_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(FactTypeError, match=r"net.connect_error.port = '29500' is a str, declared number"):
        fact_message(ConnectError(port="29500"), 0, "w")  # type: ignore[arg-type]


def test_a_nan_value_is_refused() -> None:
    with pytest.raises(FactTypeError, match=r"oom.event.free is NaN"):
        fact_message(OomEvent(free=float("nan")), 0, "w")


def test_messages_mark_presence_and_carry_regex_answers() -> None:
    rule = golden_rules()[0]
    regex = next(c for c in rule.when[0].conditions if c.op == "matches")
    message = fact_message(ConnectError(host="10.1.2.3", port=0), 7, "w", [regex])
    assert message["id"] == "w7" and message["kind"] == "net.connect_error" and message["dr__role"] == "w"
    assert message["has__host"] == 1 and "has__port" not in message and message["port"] == 0
    assert [v for k, v in message.items() if k.startswith("matches__host__")] == [True]


# ---- both engines ----

@needs_durable
@pytest.mark.parametrize("rule,test", CASES, ids=[f"{r.id}-{t.expect}-{t.name}" for r, t in CASES])
def test_rule_case_same_in_both_engines(rule, test) -> None:
    facts = facts_for(test)
    native, durable = both([rule], facts)
    assert native == durable


@needs_durable
def test_whole_rule_base_same_in_both_engines() -> None:
    facts = [f for _, test in CASES for f in facts_for(test)]
    native, durable = both(list(RULES), facts)
    assert native == durable and native


def _errors(*specs: tuple[str, str, int]) -> list[Fact]:
    return [ConnectError(host=h, outcome=o, port=p, transport="store", rank=1) for h, o, p in specs]


@needs_durable
def test_unless_fact_arriving_after_the_match_still_vetoes_it() -> None:
    facts = _errors(("10.0.0.1", "timeout", 29500), ("10.0.0.2", "timeout", 29500), ("10.0.0.1", "reset", 29500))
    native, durable = both(golden_rules()[:1], facts)
    assert native == durable == [("GOLD001", (("err", 1),))]


@needs_durable
def test_findings_are_capped_in_native_order() -> None:
    facts = _errors(*[(f"10.0.0.{i}", "refused", 2000 + i) for i in range(40, 0, -1)])
    native, durable = both(golden_rules()[:1], facts)
    assert native == durable and len(durable) == 25 and durable[0] == ("GOLD001", (("err", 0),))


@needs_durable
def test_one_fact_may_bind_two_aliases() -> None:
    facts: list[Fact] = [OomEvent(device=0, allocated_frac=0.9, requested=2.0, free=1.0, outside=5.0),
                         OomEvent(device=0, allocated_frac=0.2, requested=3.0, free=0.5, outside=5.0),
                         OomEvent(device=1, allocated_frac=0.7, requested=1.0, free=1.0)]
    native, durable = both(golden_rules()[2:], facts)
    assert native == durable == [("GOLD003", (("a", 0), ("b", 0))), ("GOLD003", (("a", 0), ("b", 1)))]


@needs_durable
def test_join_with_presence_and_two_unless() -> None:
    facts: list[Fact] = [EnvVar(name="NCCL_SOCKET_IFNAME", value="eth0"), Interface(name="docker0", address="172.17.0.1", virtual=True),
                         Interface(name="veth1", virtual=True), EnvVar(name="NCCL_SOCKET_IFNAME", value="ib0"),
                         IfnameError(ifname="ib0")]
    native, durable = both(golden_rules()[1:2], facts)
    assert native == durable == [("GOLD002", (("var", 0), ("ifc", 1)))]


@needs_durable
def test_repeated_runs_leave_no_threads_behind() -> None:
    before = threading.active_count()
    facts = _errors(("10.0.0.1", "timeout", 29500))
    for _ in range(200):
        assert run(golden_rules()[:1], facts, "durable")
    assert threading.active_count() == before


# ---- the command line ----

FIXTURE = "fixtures/logs/nccl-shm-no-space.log"


@needs_durable
def test_analyze_with_durable_reports_what_native_reports() -> None:
    native = run_doctor("analyze", "--json", FIXTURE)
    durable = run_doctor("analyze", "--json", "--engine", "durable", FIXTURE)
    assert (native.returncode, durable.returncode) == (1, 1), durable.stderr
    assert json.loads(durable.stdout) == json.loads(native.stdout)


def test_durable_on_another_python_is_one_clear_line() -> None:
    script = ("import sys; sys.version_info = (3, 12, 1, 'final', 0)\n"
              "from doctor.cli import main\n"
              f"sys.exit(main(['analyze', '--engine', 'durable', {FIXTURE!r}]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "doctor: --engine durable needs Python 3.11 (durable_rules 2.0.28 crashes on later versions); "
        "this is Python 3.12: use --engine native"]


# ---- random facts through the golden rules ----

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_hosts = st.sampled_from(["10.0.0.1", "10.0.0.2", "", "127.0.0.1", "a.internal", "eth0"])
_numbers = st.sampled_from([-1.0, 0.0, 0.5, 0.9, 1.0, 2.0, 1e12, float("inf"), float("-inf")])
_facts = st.one_of(
    st.builds(ConnectError, host=_hosts, port=st.sampled_from([-1, 0, 80, 1024, 29500, 65536]),
              outcome=st.sampled_from(["timeout", "refused", "reset", "other"]), transport=st.sampled_from(["store", "gloo"]),
              loopback=st.booleans(), rank=st.integers(-1, 5000)),
    st.builds(EnvVar, name=st.sampled_from(["NCCL_SOCKET_IFNAME", "PYTORCH_CUDA_ALLOC_CONF"]), value=_hosts),
    st.builds(Interface, name=_hosts, address=_hosts, virtual=st.booleans(), link_local=st.booleans()),
    st.builds(IfnameError, ifname=_hosts),
    st.builds(OomEvent, device=st.integers(-1, 1), allocated_frac=_numbers, requested=_numbers, free=_numbers, outside=_numbers),
)


@needs_durable
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_facts, max_size=12))
def test_random_facts_same_in_both_engines(facts: list[Fact]) -> None:
    native, durable = both(golden_rules(), facts)
    assert native == durable


def test_a_missing_compiler_golden_fails_and_is_not_written(tmp_path: Path, monkeypatch) -> None:
    rule = tmp_path / "GOLD001-every-comparison.yaml"
    rule.write_text((GOLDEN / rule.name).read_text())
    monkeypatch.delenv("DOCTOR_REFRESH_GOLDEN", raising=False)
    with pytest.raises(pytest.fail.Exception, match="DOCTOR_REFRESH_GOLDEN=1"):
        test_compiler_golden(rule)
    assert not rule.with_suffix(".json").exists()
