"""Measured facts + a compiled policy -> one result per check, through the same aggregation and rule engine.

A check fails when a rule fired with the check's policy fact bound (rules/policy/); it passes when the
facts it needs were measured and nothing fired; otherwise it could not be checked, and says why (the
probe that was skipped or failed, or that nothing measured it). NEEDS is that table, per check prefix.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from doctor.aggregate import aggregate
from doctor.diagnose import report_of, rule_base
from doctor.engine import Finding, run
from doctor.facts import Fact
from doctor.facts.status import ProbeStatus
from doctor.report.model import Report
from doctor.templates import render
from doctor.check.policy import Check, Policy

PASS, FAIL, UNCHECKED = "pass", "fail", "unchecked"


@dataclass(frozen=True)
class Need:
    """What measures a check: a fact kind (with a test on it), and the probes whose status explains its absence."""

    kinds: tuple[str, ...]
    probes: tuple[str, ...]
    test: Callable[[Fact, str], bool] = lambda fact, arg: True
    hint: str = ""


def _named(fact: Fact, name: str) -> bool:
    return getattr(fact, "name", None) == name


NEEDS: dict[str, Need] = {
    "gpus.count": Need(("cluster.node",), ("gpus", "nvidia_smi", "nvml")),
    "nvlink.all_pairs": Need(("topo.link",), ("topo", "nvidia_smi_topo", "topo_matrix"), hint="no GPU topology (nvidia-smi topo -m) was read"),
    "pcie.": Need(("cluster.pcie",), ("pcie", "nvidia_smi_query", "nvml", "lspci"), hint="no GPU PCIe link was read"),
    "ib.": Need(("cluster.ib",), ("ibstat", "ibv_devinfo", "rdma_link"), hint="no RDMA port was read"),
    "versions.pinned.": Need(("pkg.version",), ("versions",), _named),
    "versions.equal.": Need(("pkg.version",), ("versions",), _named),
    "shm.min": Need(("sys.shm",), ("dev_shm",)),
    "memlock.min": Need(("sys.ulimit",), ("memlock", "limits"), lambda f, _: getattr(f, "name", "") == "memlock"),
    "busbw.min_gbs": Need(("cluster.busbw_check",), ("bandwidth",),
                          hint="bus bandwidth needs a job: run `torchrun ... -m doctor check` or `srun doctor check`"),
    "nccl.forbidden.": Need(("probe.status", "env.var"), ("environment",),
                            lambda f, _: f.KIND == "env.var" or (getattr(f, "probe", "") == "environment"
                                                                 and getattr(f, "status", "") == "ok")),
}


@dataclass
class CheckResult:
    check: Check
    status: str
    message: str
    evidence: list[str] = field(default_factory=list)      # "source:line: text" lines
    nodes: list[str] = field(default_factory=list)


@dataclass
class Evaluation:
    results: list[CheckResult]
    report: Report

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def exit_code(self) -> int:
        """0 every check passed, 1 a check failed, 3 none failed but some could not be checked."""
        return 1 if self.count(FAIL) else 3 if self.count(UNCHECKED) else 0


def evaluate(facts: list[Fact], policy: Policy, engine: str = "native", symptom: str | None = None) -> Evaluation:
    rules, causes = rule_base()
    everything = aggregate(facts + policy.facts)
    findings = run(rules, everything, engine)
    report = report_of(findings, everything, causes, symptom)
    return Evaluation([_result(c, findings, everything) for c in policy.checks], report)


def _result(check: Check, findings: list[Finding], facts: list[Fact]) -> CheckResult:
    mine = [f for f in findings if any(getattr(fact, "check", None) == check.id and fact.KIND.startswith("policy.")
                                       for _, fact in f.bindings)]
    if mine:
        evidence: list[str] = []
        nodes: list[str] = []
        for f in mine:
            for _, fact in f.bindings:
                if not fact.KIND.startswith("policy."):
                    evidence.append(f"{fact.origin.where() or fact.KIND}: {fact.origin.text}".rstrip(": "))
                    if fact.node and fact.node not in nodes:
                        nodes.append(fact.node)
        return CheckResult(check, FAIL, render(mine[0].rule.title, mine[0].bound()), list(dict.fromkeys(evidence)), nodes)
    reason = _unchecked(check, facts)
    return CheckResult(check, UNCHECKED, reason) if reason else CheckResult(check, PASS, f"{check.text}: met")


def _unchecked(check: Check, facts: list[Fact]) -> str:
    """Why a check could not be made, or '' when the facts it needs are there."""
    prefix = next((p for p in NEEDS if check.id == p or (p.endswith(".") and check.id.startswith(p))), None)
    if prefix is None:
        return ""
    need = NEEDS[prefix]
    arg = check.id[len(prefix):]
    if any(f.KIND in need.kinds and need.test(f, arg) for f in facts):
        return ""
    broken = [f for f in facts if isinstance(f, ProbeStatus) and f.status != "ok" and any(p in f.probe for p in need.probes)]
    if broken:
        return "; ".join(f"probe {f.probe} {f.status}: {f.reason}" for f in broken[:3])
    if need.hint:
        return need.hint
    return f"nothing measured it (no {need.kinds[0]} fact{' for ' + arg if arg else ''})"
