"""Lines that look like an error, whatever wrote them: what is left when no rule explains an input."""
from __future__ import annotations

from doctor.facts.base import Fact, fact


@fact
class ErrorLine(Fact):
    """An error-looking line (NCCL WARN, a Python exception, `Error:`/`failed`/`FATAL`): the report lists those no
    rule consumed. form: nccl_warn | exception | error | failed | signal."""

    KIND = "log.error_line"
    form: str = ""
    text: str = ""


@fact
class JobOutcome(Fact):
    """A run's own record of how it ended: MLPerf's logger closes every run with `run_stop` and a status."""

    KIND = "job.outcome"
    status: str = ""               # success | aborted | ...
    recorder: str = ""             # mlperf


@fact
class SurvivedLine(Fact):
    """A failure sign in a log whose run records its own success: a line the run went on from (teardown noise, an
    init warning), not the failure. read_as: the fact kind it was read as."""

    KIND = "log.survived"
    read_as: str = ""


@fact
class GpuBuffers(Fact):
    """The job hands GPU memory to a communication library other than NCCL (MPI, UCX, NIXL): an OSU test run with
    device buffers, ucx_perftest with CUDA memory, NIXL registering VRAM. Context for that library's settings.
    library: mpi | ucx | nixl."""

    KIND = "job.gpu_buffers"
    library: str = ""
