"""`doctor cluster --save-facts FILE`: the facts of a whole job as rank 0 received them, read back for `doctor analyze`.

Sample input (doctor.cluster.output.write_job_facts; one JSON object per line):
    {"schema":"doctor.job-facts/1","cluster":{"world_size":3,"ranks":3,"transport":"gloo","nodes":[...]}}
    {"kind":"cluster.node","node":"node1","rank":-1,"gpus":0,...,"origin":{"source":"doctor cluster node info",...}}
    {"kind":"env.var","node":"node1","rank":-1,"name":"NCCL_IB_HCA","value":"mlx5_0","origin":{"source":"environment",...}}

A stream probe, so the file is read by it alone: its lines quote environment variables and log text, which the
line probes would otherwise read a second time, wrongly. Each line is decoded as the ranks' payloads are
(doctor.cluster.wire.fact_from_dict): an unknown kind or a field of the wrong type drops that line, never the file;
at most MAX_BYTES are read and MAX_FACTS kept. A fact keeps the origin it had in the live run (the job-level
aggregates compare live environment facts only), so `doctor analyze FILE` finds what `doctor cluster` found.
"""
from __future__ import annotations

import json
from typing import BinaryIO

from doctor.cluster.output import JOB_FACTS_SCHEMA
from doctor.cluster.wire import MAX_FACTS, fact_from_dict
from doctor.probing.contract import ParseContext
from doctor.probing.stream import StreamProbe, StreamRefused

MAX_BYTES = 64 * 2**20
MAX_LINE = 2**20


class JobFacts(StreamProbe):
    name = "job_facts"
    yields = ("cluster.node", "cluster.rank", "cluster.reach", "cluster.busbw", "cluster.pair_bw", "cluster.timing",
              "cluster.rendezvous", "env.var", "pkg.version", "sys.shm", "sys.ulimit", "policy.min", "probe.status")

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        first = head.lstrip()[:200].replace(b" ", b"")
        return first.startswith(b"{") and f'"schema":"{JOB_FACTS_SCHEMA}"'.encode() in first

    def read(self, stream: BinaryIO, ctx: ParseContext) -> None:
        read = 0
        stream.readline(MAX_LINE)                    # the header: the job's summary, no fact
        for raw in stream:
            read += len(raw)
            if read > MAX_BYTES:
                raise StreamRefused(f"a job-facts file above {MAX_BYTES >> 20} MiB; not read further")
            if len(ctx.facts) >= min(ctx.max_facts, MAX_FACTS):
                return
            try:
                fact = fact_from_dict(json.loads(raw[:MAX_LINE]))
            except (ValueError, RecursionError):     # not JSON, or nested too deeply: that line only
                continue
            if fact is not None:
                ctx.facts.append(fact)
