"""The fleet report: causes over time, nodes judged against their share of jobs, a decision per job.

build() reads the store once; the renderers (json, prometheus, slurm exclude list, text) only format.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from doctor.fleet.actions import Decision, cause_class, decide, supported
from doctor.fleet.hostlist import compress
from doctor.fleet.store import StoredJob
from doctor.fleet.suspects import ALPHA, MIN_FAILURES, NodeVerdict, judge, stratum

SCHEMA = "doctor.fleet/1"
TEST = ("one-sided Poisson test of the node's failures against those expected from its jobs at the fleet's "
        "per-job-size failure rates, Holm-corrected over all nodes")
MAX_NODE_EVIDENCE = 3


@dataclass
class FleetReport:
    jobs: list[tuple[StoredJob, Decision]]
    nodes: list[NodeVerdict]
    fleet_rate: float
    alpha: float
    failures: dict[str, list[dict[str, Any]]] = field(default_factory=dict)   # node -> failed jobs naming it
    by_day: dict[str, Counter[str]] = field(default_factory=dict)           # YYYY-MM-DD -> cause counts

    @property
    def suspects(self) -> list[str]:
        return sorted(v.node for v in self.nodes if v.suspect)

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA,
                "jobs": [_job_json(job, decision) for job, decision in self.jobs],
                "nodes": [self._node_json(v) for v in self.nodes]}

    def _node_json(self, v: NodeVerdict) -> dict[str, Any]:
        evidence = {"test": TEST, "fleet_rate": round(self.fleet_rate, 6), "alpha": self.alpha,
                    "min_failures": MIN_FAILURES, "expected_failures": v.expected, "p_value": v.p_value,
                    "p_adjusted": v.adjusted,
                    "failed_jobs": self.failures.get(v.node, [])[:MAX_NODE_EVIDENCE]}
        return {"node": v.node, "jobs": v.jobs, "failures": v.failures, "suspect": v.suspect, "evidence": evidence}


def build(jobs: list[StoredJob], alpha: float = ALPHA) -> FleetReport:
    failures: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_day: dict[str, Counter[str]] = defaultdict(Counter)
    ran: Counter[tuple[str, int]] = Counter()        # (node, job-size stratum) -> jobs, and failures named
    failed: Counter[tuple[str, int]] = Counter()
    for job in jobs:
        size = stratum(len(job.nodes))
        named = _node_failures(job)
        for node in job.nodes:
            ran[(node, size)] += 1
        for node, item in named.items():
            failures[node].append(item)
            failed[(node, size)] += 1
        if job.diagnoses:
            by_day[_day(job.when)][job.diagnoses[0]["cause"]] += 1
    verdicts = judge(_expected(ran, failed), alpha)
    suspects = {v.node for v in verdicts if v.suspect}
    decided = [(job, decide(job.diagnoses, job.nodes, suspects)) for job in jobs]
    total = sum(ran.values())
    return FleetReport(decided, verdicts, sum(failed.values()) / total if total else 0.0, alpha, dict(failures),
                       dict(sorted(by_day.items())))


def _expected(ran: Counter[tuple[str, int]], failed: Counter[tuple[str, int]]) -> dict[str, tuple[int, int, float]]:
    """node -> (jobs, failures, expected failures): each stratum's rate from the OTHER nodes (leave one out), so a
    bad node's own excess does not raise the bar it is judged against."""
    stratum_jobs: Counter[int] = Counter()
    stratum_failed: Counter[int] = Counter()
    for (node, size), n in ran.items():
        stratum_jobs[size] += n
        stratum_failed[size] += failed[(node, size)]
    out: dict[str, tuple[int, int, float]] = {}
    for (node, size), n in ran.items():
        jobs, fails, mu = out.get(node, (0, 0, 0.0))
        others = stratum_jobs[size] - n
        rate = (stratum_failed[size] - failed[(node, size)]) / others if others else 0.0
        out[node] = (jobs + n, fails + failed[(node, size)], mu + n * rate)
    return out


def _node_failures(job: StoredJob) -> dict[str, dict[str, Any]]:
    """node -> the first node-class diagnosis of this job that names it (a job counts once per node). Only a diagnosis
    a rule supports names a node: a guess from the symptom alone (no rules, its evidence the symptom's line) says
    which causes are usual for such a failure, not that this node has one."""
    out: dict[str, dict[str, Any]] = {}
    for d in job.diagnoses:
        if cause_class(d["cause"]) != "node" or not supported(d):
            continue
        line = d["evidence"][0] if d.get("evidence") else {}
        for node in d.get("nodes", []):
            out.setdefault(node, {"job": job.job, "cause": d["cause"], "source": line.get("source", ""),
                                  "line": line.get("line", 0), "text": line.get("text", "")})
    return out


def _day(when: float) -> str:
    return datetime.fromtimestamp(when, timezone.utc).strftime("%Y-%m-%d")


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, timezone.utc).isoformat(timespec="seconds")


def _job_json(job: StoredJob, decision: Decision) -> dict[str, Any]:
    """diagnoses as stored (cause, title, confidence, rules, nodes, ranks, evidence, fix, steps, next)."""
    return {"job": job.job, "ingested": _iso(job.ingested), "nodes": job.nodes, "diagnoses": job.diagnoses,
            "decision": decision.action, "exclude": list(decision.exclude), "reason": decision.reason}


def slurm_exclude(report: FleetReport) -> str:
    """The suspect nodes in Slurm hostlist syntax, for `sbatch --exclude` or `scontrol update state=drain`."""
    return compress(report.suspects)


def prometheus(report: FleetReport) -> str:
    """Text exposition format 0.0.4 (node_exporter's textfile collector)."""
    from doctor.check.outputs import _label as label
    out = ["# HELP doctor_fleet_node_failures Failed jobs attributed to the node.",
           "# TYPE doctor_fleet_node_failures gauge"]
    out += [f'doctor_fleet_node_failures{{node="{label(v.node)}"}} {v.failures}' for v in report.nodes]
    out += ["# HELP doctor_fleet_node_jobs Jobs the node ran.", "# TYPE doctor_fleet_node_jobs gauge"]
    out += [f'doctor_fleet_node_jobs{{node="{label(v.node)}"}} {v.jobs}' for v in report.nodes]
    out += ["# HELP doctor_fleet_node_suspect 1 when the node fails more jobs than the fleet rate explains.",
            "# TYPE doctor_fleet_node_suspect gauge"]
    out += [f'doctor_fleet_node_suspect{{node="{label(v.node)}"}} {int(v.suspect)}' for v in report.nodes]
    causes: Counter[str] = Counter()
    for day in report.by_day.values():
        causes.update(day)
    out += ["# HELP doctor_fleet_jobs_by_cause Jobs by leading cause.", "# TYPE doctor_fleet_jobs_by_cause gauge"]
    out += [f'doctor_fleet_jobs_by_cause{{cause="{label(c)}"}} {n}' for c, n in sorted(causes.items())]
    decisions = Counter(d.action for _, d in report.jobs)
    out += ["# HELP doctor_fleet_jobs_by_decision Jobs by decision.", "# TYPE doctor_fleet_jobs_by_decision gauge"]
    out += [f'doctor_fleet_jobs_by_decision{{decision="{a}"}} {decisions[a]}'
            for a in ("restart", "restart_excluding", "stop", "unknown")]
    return "\n".join(out) + "\n"


def attributions(jobs: list[StoredJob]) -> dict[str, Counter[str]]:
    """node -> cause -> jobs whose diagnosis of that cause names the node (the fleet screen's heat map)."""
    heat: dict[str, Counter[str]] = defaultdict(Counter)
    for job in jobs:
        for d in job.diagnoses:
            for node in d.get("nodes", []):
                heat[node][d["cause"]] += 1
    return dict(heat)
