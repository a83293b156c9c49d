"""NCCL Inspector logs (NCCL profiler plugin `inspector`, output format v4.x): one JSON object per line, one line
per collective per communicator, one file per process.

Recognised by content: a first line holding "header", "metadata" with "inspector_output_format_version", and
"coll_perf". Each file becomes one nccl.inspector_rank fact per communicator (its last collective number, how many,
mean bus bandwidth, slowest execution); aggregate_flight_recorder.inspector_lag compares the ranks. Sample line:
    {"header":{"id":"0x7f8c496ae9f661","rank":2,"n_ranks":8,"nnodes":1},"metadata":{"inspector_output_format_version":
     "v4.0",...,"pid":1639453},"coll_perf":{"coll":"AllReduce","coll_sn":1407,"coll_msg_size_bytes":17179869184,
     "coll_exec_time_us":61974,"coll_algobw_gbs":277.21,"coll_busbw_gbs":485.12}}
"""
from __future__ import annotations

import json

from doctor.facts.flight_recorder import InspectorRank
from doctor.probing.contract import DocumentProbe, ParseContext


class NcclInspector(DocumentProbe):
    name = "nccl_inspector"
    yields = ("nccl.inspector_rank",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        first = head.lstrip()[:2000]
        return first.startswith('{"header"') and "inspector_output_format_version" in first and '"coll_perf"' in first

    def parse(self, text: str, ctx: ParseContext) -> None:
        comms: dict[tuple[str, int], dict] = {}
        for number, line in enumerate(text.splitlines(), 1):
            try:
                rec = json.loads(line)
                head, perf = rec["header"], rec["coll_perf"]
                key = (str(head["id"])[:40], int(head["rank"]))
                sn = int(perf["coll_sn"])
                if not isinstance(perf, dict) or not isinstance(head, dict):
                    continue
            except (ValueError, KeyError, TypeError, RecursionError, OverflowError):
                continue
            acc = comms.setdefault(key, {"n": 0, "bw": 0.0, "exec": -1, "last": (-1, "", 0, ""), "ranks": -1})
            try:
                busbw = float(perf.get("coll_busbw_gbs") or 0.0)
                exec_us = int(perf.get("coll_exec_time_us") or 0)
                n_ranks = int(head.get("n_ranks") or -1)
            except (ValueError, TypeError, OverflowError, AttributeError):
                continue
            acc["n"] += 1
            acc["bw"] += busbw
            acc["exec"] = max(acc["exec"], exec_us)
            acc["ranks"] = n_ranks
            if sn >= acc["last"][0]:
                acc["last"] = (sn, str(perf.get("coll", ""))[:40], number, line[:300])
        for (comm, rank), acc in comms.items():
            sn, coll, number, line = acc["last"]
            ctx.emit(InspectorRank, number, line, rank=rank, comm=comm, n_ranks=acc["ranks"], last_sn=sn,
                     last_coll=coll, collectives=acc["n"], mean_busbw_gbs=round(acc["bw"] / acc["n"], 3),
                     max_exec_us=acc["exec"])
