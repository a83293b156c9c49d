"""The mlx5 user-space driver asking the kernel for a DEVX method the kernel does not have ("Protocol not supported").

rdma-core's mlx5dv_devx_* calls (UCX's rc_mlx5 / dc_mlx5 transports use them) reach the mlx5_ib kernel driver through
ioctl methods that were added over kernel and MLNX_OFED releases; a kernel older than the user-space rdma-core or
MLNX_OFED answers an unknown method with EPROTONOSUPPORT, "Protocol not supported" (rdma-core maintainers in
openucx/ucx#7229; "MOFED 5 user space on a MOFED 4 kernel is not supported", ucx#6906). Other errnos of the same calls
(a firmware or a device that refuses the object) are not this reading.

Sample input:
      rc_mlx5_devx.c:99   UCX  ERROR mlx5dv_devx_create_event_channel() failed: Protocol not supported
    mlx5dv_devx_create_event_channel() failed: Protocol not supported
"""
from __future__ import annotations

from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_DEVX = lazy_compile(r"\b(?P<call>mlx5dv_devx_\w+)\([^)]*\) failed[^:]*: Protocol not supported")


class RdmaDevxErrors(LineProbe):
    name = "rdma_devx"
    yields = ("sys.call_failed",)
    triggers = ("mlx5dv_devx_",)

    def feed(self, line_no: int, line: str) -> None:
        m = _DEVX.search(line)
        if m:
            self.ctx.emit(CallFailed, line_no, line, call=m["call"], errno="EPROTONOSUPPORT",
                          resource="ucx" if "UCX" in line else "rdma-core")
