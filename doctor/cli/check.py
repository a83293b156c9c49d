"""`doctor check [--policy FILE] [PATH...]`: a node (or, under torchrun/srun, a whole job) against a policy.

Exit codes: 0 every check passed; 1 a check failed; 2 usage or a malformed policy (one line, FILE:LINE);
3 nothing failed but a check could not be made (a probe it needs was skipped or failed, or it needs a job).
--slurm: HealthCheckProgram mode (50 s deadline, drain on failure; --dry-run prints the drain command).
"""
from __future__ import annotations

import argparse
import sys
import time

from doctor.cli.exit_codes import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="artifacts to check as well (logs, tool outputs, bundles)")
    parser.add_argument("--policy", metavar="FILE", help="policy YAML (default: doctor/check/default-policy.yaml)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (doctor.check/1)")
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML: one testcase per check")
    parser.add_argument("--prometheus", metavar="FILE", help="write Prometheus textfile-collector metrics (a .prom file)")
    parser.add_argument("--engine", choices=("native", "durable"), default="native", help="rule engine backend")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--node", action="store_true", help="check this node only, even under torchrun/srun")
    where.add_argument("--offline", action="store_true", help="check only the PATHs given, gather nothing live")
    parser.add_argument("--slurm", action="store_true", help="HealthCheckProgram mode: 50 s deadline, drain on failure")
    parser.add_argument("--dry-run", action="store_true", help="with --slurm: print the drain command, do not run it")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S", help="deadline of a job-wide check (default 120)")


def run(args: argparse.Namespace) -> int:
    from doctor.check import outputs, slurm
    from doctor.check.evaluate import evaluate
    from doctor.check.policy import DEFAULT_POLICY, load
    from doctor.errors import UsageError
    started = time.monotonic()
    if args.dry_run and not args.slurm:
        raise UsageError("--dry-run only applies to --slurm")
    if args.slurm:
        slurm.deadline(slurm.DEADLINE_S, f"doctor check: could not finish within {slurm.DEADLINE_S:g}s; node left as is")
    policy = load(args.policy or DEFAULT_POLICY)
    gathered = gather(args, policy)
    if gathered is None:                     # a rank other than 0 of a job-wide check
        return ExitCode.OK
    facts, extra = gathered
    ev = evaluate(facts, policy, args.engine)
    seconds = time.monotonic() - started
    if args.junit:
        outputs.write_atomic(args.junit, outputs.junit(ev, policy.path, seconds))
    if args.prometheus:
        outputs.write_atomic(args.prometheus, outputs.prometheus(ev, seconds))
    if args.slurm and ev.exit_code == ExitCode.FINDINGS:
        line, _ = slurm.drain(ev, args.dry_run)
        extra["drain"] = line
        print(f"doctor check: {line}", file=sys.stderr)
    if args.json:
        sys.stdout.write(outputs.dumps(outputs.to_json(ev, policy.path, seconds, extra)))
    else:
        sys.stdout.write(outputs.render_text(ev, policy.path))
    return ev.exit_code


def gather(args: argparse.Namespace, policy):  # type: ignore[no-untyped-def]
    """(facts, extra JSON) for this node, the PATHs, or the whole job; None on ranks other than 0."""
    facts = []
    extra: dict = {}  # type: ignore[type-arg]
    if args.paths:
        from doctor.probing.offline import gather_files
        from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
        files = gather_files(args.paths, LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES)   # a saved job's facts too
        facts += files.facts
        extra["inputs"] = [{"path": i.path, "status": i.status, "reason": i.reason} for i in files.inputs]
    if args.offline:
        return facts, extra
    if not (args.node or args.slurm) and in_job():
        return job_facts(args, facts, extra)
    from doctor.check.slurm import DEADLINE_S
    from doctor.cluster import node_facts
    return facts + node_facts.gather(DEADLINE_S - 5 if args.slurm else args.timeout / 2), extra


def in_job() -> bool:
    import os
    return ("RANK" in os.environ and "WORLD_SIZE" in os.environ) or \
        ("SLURM_PROCID" in os.environ and "SLURM_NTASKS" in os.environ and "SLURM_STEP_ID" in os.environ)


def job_facts(args: argparse.Namespace, facts: list, extra: dict):  # type: ignore[no-untyped-def,type-arg]
    """Run `doctor cluster`'s gather and active tests; rank 0 gets every rank's facts."""
    from doctor.cluster import job
    from doctor.cluster.launch import from_env
    from doctor.cluster.rendezvous import RendezvousFailed
    from doctor.errors import CheckError
    spec = from_env()
    phases = job.Phases()
    job.watchdog(spec.rank, phases, args.timeout)
    try:
        outcome = job.run(spec, job.Options(deadline_s=args.timeout), phases)
    except RendezvousFailed as err:
        raise CheckError(f"rank {spec.rank} could not join the job, nothing checked: {err}") from None
    if outcome.rank != 0:
        return None
    extra["cluster"] = outcome.summary
    return facts + outcome.facts, extra
