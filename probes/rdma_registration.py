"""RDMA memory registration that failed, as the libraries other than NCCL word it (NCCL's own `Call to ibv_reg_mr
failed` WARN is read by nccl_errors): UCX's ib_md error, NVSHMEM's IB transports and perftest. Registration of GPU
memory needs the peer-memory module (or DMA-BUF); registration of host memory needs locked-memory headroom, so
the errno and whether the buffer was GPU memory tell those apart.

Sample input:
    ib_md.c:307 UCX ERROR ibv_reg_mr(address=0xfff680000000, length=2147483648, access=0x10000f) failed: Bad address
    ucp_mm.c:81 UCX ERROR failed to register address 0xfff5c0000000 (cuda) length 17179869184
    src/comm/transports/common/transport_ib_common.cpp:58: NULL value mem registration failed
    src/comm/transports/ibrc/ibrc.cpp:486: non-zero status: 2 Unable to register memory handle.
    Couldn't allocate MR
"""
from __future__ import annotations

from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.lines import errno_of
from doctor.probing.regex import lazy_compile

_UCX = lazy_compile(r"\bibv_(?:exp_)?reg_mr\(address=[^)]*\)\s*failed")
_UCX_GPU = lazy_compile(r"failed to register address \S+ (?:\((?P<type>cuda|rocm)\)|mem_type bit 0x(?P<bit>[0-9a-f]+))")
_NVSHMEM = ("mem registration failed", "Unable to register memory handle")
_PERFTEST = "Couldn't allocate MR"


class RdmaRegistration(LineProbe):
    name = "rdma_registration"
    yields = ("sys.call_failed",)
    triggers = ("reg_mr(", "failed to register address", *_NVSHMEM, _PERFTEST)

    def feed(self, line_no: int, line: str) -> None:
        if _UCX.search(line):
            self._failed(line_no, line, "ucx")
        elif (m := _UCX_GPU.search(line)) and (m["type"] or m["bit"] not in (None, "1")):
            self._failed(line_no, line, "ucx gpu memory")   # UCX names the memory type it could not register
        elif any(w in line for w in _NVSHMEM):
            self._failed(line_no, line, "nvshmem gpu memory")   # NVSHMEM registers its GPU symmetric heap
        elif _PERFTEST in line:
            self._failed(line_no, line, "perftest")

    def _failed(self, line_no: int, line: str, resource: str) -> None:
        self.ctx.emit(CallFailed, line_no, line, call="ibv_reg_mr", errno=errno_of(line), resource=resource)
