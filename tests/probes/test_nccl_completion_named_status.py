"""nccl_errors: NCCL 2.28+ names the work completion's status ("status=IBV_WC_RETRY_EXC_ERR(12)"); it is the same
completion error 12 as "status=12" and "with error 12" (issue 12, held-out batch CL: nccl#2397, where the new wording
was read by nothing and the ib_retries_exceeded sign never held)."""
from __future__ import annotations

import pytest

from doctor.judgement.context import narrowing_sign
from doctor.probing.contract import parse_lines
from probes.nccl_errors import NcclErrors

NAMED = ("ubuntu4:250414:250527 [0] transport/net_ib/p2p.cc:648 NCCL WARN NET/IB: Got completion from peer "
         "10.153.235.11<38830> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129 "
         "localGid ::ffff:1.1.1.4 remoteGids::ffff:1.1.2.2 hca mlx5_1\n")                                # nccl#2397
NUMBERED = ("node1:1:2 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<52386> with "
            "status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2\n")
OLD = "node1:1:2 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\n"


@pytest.mark.parametrize("line", [NAMED, NUMBERED, OLD])
def test_every_wording_is_completion_error_12(line: str) -> None:
    calls = [f for f in parse_lines(NcclErrors, line) if f.KIND == "sys.call_failed"]
    assert [(f.get("call"), f.get("errno")) for f in calls] == [("ibv_poll_cq", "IBV_WC_12")]
    assert narrowing_sign(calls) == "ib_retries_exceeded"


def test_the_named_wording_keeps_its_roce_gids() -> None:
    (call,) = [f for f in parse_lines(NcclErrors, NAMED) if f.KIND == "sys.call_failed"]
    assert call.get("roce") and call.get("local_gid") == "::ffff:1.1.1.4" and call.get("remote_gid") == "::ffff:1.1.2.2"
