"""RDMA stacks failing to create their verbs objects for lack of locked memory (ENOMEM), in their own words.

UCX, Open MPI, libfabric (EFA) and DAPL allocate completion queues, queue pairs and receive buffers in pinned
memory charged to RLIMIT_MEMLOCK; each says so differently. NCCL's own "Call to ibv_* failed" lines are read by
probes/nccl_errors.py; the libraries' limit warnings (which name the limit) by probes/limits.py.

Sample input:
    [1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.
    UCX ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory
    Failed to create a completion queue (CQ):
    Error:    Cannot allocate memory
    Libfabric error: (-12) Cannot allocate memory
    libfabric:17778:1732779731::efa:cq:efa_cq_ibv_cq_ex_open_with_ibv_create_cq_ex():92<warn> Unable to create extended CQ: Cannot allocate memory
"""
from __future__ import annotations

from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

# UCX / rdma-core wording: "<dev>: ibv_create_cq() failed: Cannot allocate memory", "ibv_create_qp(...) failed: ..."
_VERBS_CALL = lazy_compile(r"(?P<call>ibv_(?:create_cq|create_qp|create_srq|reg_mr|create_cq_ex))\b[^:]*failed: Cannot allocate memory")
_OMPI_CQ = "Failed to create a completion queue (CQ)"
_OMPI_ERROR = lazy_compile(r"^\s*Error:\s+Cannot allocate memory")
_LIBFABRIC = lazy_compile(r"Libfabric error: \(-12\) Cannot allocate memory|Unable to create (?:extended )?CQ: Cannot allocate memory")
_NAMES_LIMIT = "max locked memory (ulimit -l)"
_LOOKAHEAD = 6   # Open MPI prints the errno a few lines below its headline


class RdmaAllocErrors(LineProbe):
    name = "rdma_alloc"
    yields = ("sys.call_failed",)
    triggers = ("Cannot allocate memory", _OMPI_CQ)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.ompi_headline: tuple[int, str] | None = None

    def feed(self, line_no: int, line: str) -> None:
        if _OMPI_CQ in line:
            self.ompi_headline = (line_no, line)
            return
        if self.ompi_headline and _OMPI_ERROR.search(line):
            n, head = self.ompi_headline
            self.ompi_headline = None
            if line_no - n <= _LOOKAHEAD:
                self.ctx.emit(CallFailed, n, head, call="ibv_create_cq", errno="ENOMEM", resource="openmpi")
            return
        m = _VERBS_CALL.search(line)
        if m and "NCCL WARN" not in line and _NAMES_LIMIT not in line:   # NCCL's wording: nccl_errors.py; a line
            # that names the limit itself ("Please set max locked memory (ulimit -l) ...") is the limit's (limits.py)
            call = m["call"].replace("_ex", "")
            self.ctx.emit(CallFailed, line_no, line, call=call, errno="ENOMEM", resource="ucx" if "UCX" in line else "verbs")
        elif _LIBFABRIC.search(line):
            self.ctx.emit(CallFailed, line_no, line, call="fi_cq_open" if "CQ" in line else "fi_rx_post", errno="ENOMEM",
                          resource="libfabric")
