"""What a report says when nothing in the input shows a failure: why it found nothing, how to ask for a symptom's
usual causes, and which of the usual artifacts were not uploaded (the ones that were are not asked for again)."""
from __future__ import annotations

from doctor.judgement.context import shows_failure
from doctor.judgement.unknowns import check_for
from doctor.report.model import Report

# The artifacts worth uploading first, and the probes that read each: asked for only when none of them read anything.
USUAL_ARTIFACTS: tuple[tuple[str, frozenset[str]], ...] = (
    ("the log of every rank run with NCCL_DEBUG=INFO", frozenset({"nccl_log", "nccl_errors"})),
    ("nvidia-smi topo -m", frozenset({"topo_matrix"})),
    ("python -m torch.utils.collect_env", frozenset({"versions", "node_versions", "pip_list"})),
)
SYMPTOMS = "hang|init_timeout|nccl_error|crash|slow_training|slow_multinode|oom"


def missing_artifacts(report: Report) -> list[str]:
    """The usual artifacts no probe read anything from in this report's inputs."""
    read = {f.origin.probe for f in report.facts if f.KIND != "probe.status"}
    return [name for name, probes in USUAL_ARTIFACTS if not read & probes]


def advice(report: Report) -> list[str]:
    """The lines under "No known cause found": each a sentence."""
    if shows_failure(report.facts):         # e.g. a benchmark below its expectation that no rule explains
        lines = ["The inputs show a symptom, but no rule names a cause and none of its usual causes is likely enough "
                 "to show."]
    else:
        lines = ["Nothing in these inputs shows a failure: no error line, no figure below an expectation."]
    lines.extend(_survived(report))
    if report.if_failed:
        lines.append("If the job failed anyway, the likeliest causes for an input like this one (fitted on doctor's "
                     "case base; most such inputs are healthy): " + "; ".join(_guess(d) for d in report.if_failed) + ".")
    if report.symptom is None:
        lines.append(f"If the job failed anyway, say how: `doctor analyze --symptom {SYMPTOMS} PATH...` lists that "
                     "symptom's usual causes and the check that tells each apart.")
    missing = missing_artifacts(report)
    if missing:
        lines.append("Not uploaded yet: " + "; ".join(missing) + ". Or run `doctor scan` on the node.")
    return lines


def _guess(d) -> str:  # type: ignore[no-untyped-def]
    """`cause` (p): the check that tells it apart."""
    check = check_for(d.cause)
    return f"{d.cause} ({d.confidence:.0%})" + (f": {check}" if check else "")


def _survived(report: Report) -> list[str]:
    """A sentence per run that recorded its own success and printed failure-looking lines (doctor/aggregate_outcome.py)."""
    out = []
    for done in (f for f in report.facts if f.KIND == "job.outcome" and getattr(f, "status", "") == "success"):
        lines = sorted({f.origin.line for f in report.facts
                        if f.KIND == "log.survived" and f.origin.source == done.origin.source})
        if lines:
            out.append(f"The run in {done.origin.where()} records its own success; {len(lines)} failure-looking "
                       f"line(s) in it (first at line {lines[0]}) are read as lines it went on from, not as the failure.")
    return out
