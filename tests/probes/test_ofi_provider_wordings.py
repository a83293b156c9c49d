"""aws-ofi-nccl's choice of libfabric provider: 'efa' is the RDMA fabric; 'tcp' (or 'sockets') means libfabric offered
no EFA device and NCCL's traffic goes over TCP (aws-ofi-nccl#803: EFA devices not passed into the container). Lines
verbatim from fixtures/cases/ib-not-used-aws-ofi-nccl-803-p4d-docker-ofi-tcp-provider and
fixtures/cases/healthy-awsefaeks-p4d-2node; Slingshot's 'cxi' from fixtures/cases/healthy-laifs-28-lumi-rccl-cxi-sendrecv."""
from __future__ import annotations

import glob

from doctor.probing.contract import parse_lines
from doctor_cli import REPO
from probes.nccl_log import NcclLogProbe

TCP = "6f2d8a82d208:1287:1328 [0] NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)\n"


def unavailable(text: str) -> list[str]:
    return [f.reason for f in parse_lines(NcclLogProbe, text, source="nccl.log", node="") if f.KIND == "nccl.ib_unavailable"]


def test_the_tcp_provider_is_no_efa_device() -> None:
    assert unavailable(TCP) == ["no_ofi_provider"]


def test_the_efa_and_cxi_providers_are_the_fabric() -> None:
    for case in ("healthy-awsefaeks-p4d-2node", "healthy-laifs-28-lumi-rccl-cxi-sendrecv"):
        for path in glob.glob(str(REPO / "fixtures/cases" / case / "input" / "*")):
            text = open(path, encoding="utf-8", errors="replace").read()
            assert "no_ofi_provider" not in unavailable(text), path
