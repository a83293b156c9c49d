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


# Other libraries print libibverbs' own status string (ibv_wc_status_str) for the same completion errors:
# uccl#799 (fixtures/cases/roce-gid-uccl-799-bnxt-link-local-gid-cqe12, held-out batch CR) and UCX's wording
UCCL = "CQE ERROR wr_id=3 status=12(transport retry counter exceeded) opcode=1 byte_len=0 vendor_err=0xa qp_num=0x2c10\n"
UCX = "[1712345678.123456] [node1:1234 :0]        ib_mlx5_log.c:177  Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)\n"
RNR = "work completion error: RNR retry counter exceeded (13)\n"


@pytest.mark.parametrize("line,errno,roce", [(UCCL, "IBV_WC_12", False), (UCX, "IBV_WC_12", True), (RNR, "IBV_WC_13", False)])
def test_the_verbs_status_string_is_the_same_completion_error(line: str, errno: str, roce: bool) -> None:
    from probes.rdma_qp_setup import RdmaQpSetup
    calls = [f for f in parse_lines(RdmaQpSetup, line) if f.KIND == "sys.call_failed"]
    assert [(f.get("call"), f.get("errno"), f.get("roce")) for f in calls] == [("ibv_poll_cq", errno, roce)]
    assert narrowing_sign(calls) == "ib_retries_exceeded"
