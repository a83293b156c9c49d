"""A run's own record of how it ended: MLPerf's `run_stop` with its status.

Every MLPerf Training run logs through mlperf_logging, which closes the run with one line:
    :::MLLOG {"namespace": "", "time_ms": 1745481418576, "event_type": "INTERVAL_END", "key": "run_stop",
              "value": null, "metadata": {"file": "/workspace/retinanet/engine.py", "lineno": 315, "status": "success"}}
(one line in the log; a launcher may prefix it, e.g. "0: "). status is "success" or "aborted". The fact lets the
combiner (doctor/aggregate_outcome.py) read the failure-looking lines of a run that succeeded as lines it survived.
"""
from __future__ import annotations

import json

from doctor.facts.logline import JobOutcome
from doctor.probing.contract import LineProbe

MARK = ":::MLLOG "
MAX_RECORD = 4096             # an MLLOG record is a few hundred bytes; longer is not one


class JobOutcomes(LineProbe):
    name = "job_outcome"
    yields = ("job.outcome",)
    triggers = ('"run_stop"',)

    def feed(self, line_no: int, line: str) -> None:
        start = line.find(MARK)
        if start < 0 or len(line) - start > MAX_RECORD:
            return
        try:
            record = json.loads(line[start + len(MARK):])
        except ValueError:
            return
        if not isinstance(record, dict) or record.get("key") != "run_stop":
            return
        meta = record.get("metadata")
        status = meta.get("status") if isinstance(meta, dict) else None
        if isinstance(status, str) and status:
            self.ctx.emit(JobOutcome, line_no, line, status=status[:40], recorder="mlperf")
