"""`doctor cluster`: run on every rank of a job (`torchrun ... -m doctor cluster`, `srun doctor cluster`).

Every rank gathers its node's facts and runs the active tests; rank 0 gathers all facts over gloo and
diagnoses the whole job with the same engine as `doctor analyze`. A rank that cannot join diagnoses that
failure by itself and names the peer it could not reach. Exit codes: rank 0 (or a rank that failed to join)
0 nothing found, 1 diagnoses, 2 usage, 3 could not check (deadline); other ranks 0.
torch is imported only inside this verb.
"""
from __future__ import annotations

import argparse
import sys

from doctor.cli.analyze import SYMPTOMS
from doctor.cli.exit_codes import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON (doctor.report/1 plus 'cluster')")
    parser.add_argument("--output", metavar="FILE", default="", help="write the report here instead of stdout ({rank} is replaced)")
    parser.add_argument("--symptom", choices=SYMPTOMS, help="what you saw; causes that explain it rank higher")
    parser.add_argument("--engine", choices=("native", "durable"), default="native", help="rule engine backend")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S", help="hard deadline of the whole run (default 120)")
    parser.add_argument("--rendezvous-timeout", type=float, default=30.0, metavar="S",
                        help="how long to wait for the store and for every rank to join (default 30)")
    parser.add_argument("--backend", choices=("auto", "gloo", "nccl"), default="auto",
                        help="bandwidth tests over NCCL (GPUs) or gloo (CPUs); facts always travel over gloo")
    parser.add_argument("--bandwidth-seconds", type=float, default=4.0, metavar="S", help="budget of the busbw sweep, 0 = off")
    parser.add_argument("--pair-seconds", type=float, default=8.0, metavar="S", help="budget of the node pair tests, 0 = off")
    parser.add_argument("--pair-bytes", type=int, default=2**20, metavar="N", help="bytes each way per pair exchange")
    parser.add_argument("--probe-port", type=int, default=0, metavar="PORT",
                        help="port of the reachability listener on each node (default: an ephemeral one, like gloo's)")
    parser.add_argument("--expected-busbw", type=float, default=-1, metavar="GBS",
                        help="the bus bandwidth this job should reach, GB/s (when no topology says)")
    parser.add_argument("--no-timing", action="store_true", help="skip the per-rank timing (straggler) test")
    parser.add_argument("--save-facts", metavar="FILE", default="",
                        help="also write the job's facts (every rank's, as rank 0 received them) to FILE ({rank} is "
                             "replaced): `doctor analyze FILE` diagnoses them again offline")


def options(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from doctor.cluster.job import Options
    return Options(rendezvous_timeout_s=args.rendezvous_timeout, deadline_s=args.timeout,
                   pg_timeout_s=max(10.0, min(60.0, args.timeout / 3)), probe_port=args.probe_port, backend=args.backend,
                   bandwidth_s=args.bandwidth_seconds, pairs_s=args.pair_seconds, pair_bytes=args.pair_bytes,
                   timing=not args.no_timing)


def run(args: argparse.Namespace) -> int:
    from doctor.cluster import job
    from doctor.cluster.launch import from_env
    from doctor.cluster.output import emit
    from doctor.cluster.rendezvous import RendezvousFailed
    from doctor.diagnose import diagnose_facts, rule_base
    spec = from_env()
    phases = job.Phases()
    job.watchdog(spec.rank, phases, args.timeout)
    try:
        outcome = job.run(spec, options(args), phases)
    except RendezvousFailed as err:
        return local_failure(spec, err, args, phases)
    if outcome.rank != 0:
        return ExitCode.OK
    phases.enter("load rules")
    rule_base()
    phases.done("load_rules")
    phases.enter("diagnose")
    report = diagnose_facts(outcome.facts + expected_facts(args), args.symptom, args.engine)
    phases.done("diagnose")
    outcome.summary["seconds"] = round(sum(phases.seconds.values()), 3)
    save_facts(args.save_facts, outcome.facts + expected_facts(args), outcome.summary, spec.rank)
    emit(report, outcome.summary, args.json, args.output, spec.rank)
    return ExitCode.FINDINGS if report.diagnoses else ExitCode.OK


def save_facts(target: str, facts: list, summary: dict, rank: int) -> None:  # type: ignore[type-arg]
    if target:
        from doctor.cluster.output import write_job_facts
        write_job_facts(target.replace("{rank}", str(rank)), facts, summary)


def expected_facts(args: argparse.Namespace) -> list:  # type: ignore[type-arg]
    if args.expected_busbw <= 0:
        return []
    from doctor.check.policy import expected_busbw
    return [expected_busbw(args.expected_busbw, "--expected-busbw")]


def local_failure(spec, err, args: argparse.Namespace, phases) -> int:  # type: ignore[no-untyped-def]
    """This rank could not join: diagnose from its own facts and say which peer it could not reach."""
    from doctor.cluster.local_gather import node_name
    from doctor.cluster.output import emit
    from doctor.diagnose import diagnose_facts
    from doctor.facts.cluster import PairReach
    facts = err.facts
    if any(f.KIND == "cluster.rendezvous" and f.outcome == "missing_ranks" for f in facts) and spec.rank != 0:
        print(f"doctor cluster: rank {spec.rank}: {err} (rank 0 reports the job)", file=sys.stderr)
        return ExitCode.FINDINGS
    report = diagnose_facts(facts, args.symptom, args.engine)
    peer = next((f for f in facts if isinstance(f, PairReach) and not f.reachable), None)
    reach = f"could not reach {peer.host}:{peer.port} ({peer.outcome})" if peer else str(err)
    top = f" -> {report.diagnoses[0].cause}" if report.diagnoses else ""
    print(f"doctor cluster: rank {spec.rank} on {node_name()}: rendezvous failed: {reach}{top}", file=sys.stderr)
    summary = {"rank": spec.rank, "node": node_name(), "world_size_expected": spec.world_size, "error": str(err),
               "unreachable_peer": f"{peer.host}:{peer.port}" if peer else "", "phases": phases.seconds}
    save_facts(args.save_facts, facts, summary, spec.rank)
    emit(report, summary, args.json, args.output, spec.rank)
    return ExitCode.FINDINGS if report.diagnoses else ExitCode.CANNOT_CHECK
