"""UCX's "network device 'X' is not available" WARN alone is a notice; its "no usable transports/devices" ERROR is
the failure (probes/openmpi.py).

Real text: a healthy MLPerf Training v3.1 run on one AWS VM (CTuning, 2x A10G, run_stop success) prints the WARN
for ':1' and trains to the end (fixtures/cases/healthy-mlperf-v31-ctuning-aws-g5-2xa10g-mxnet-resnet-ucx-warn,
held-out batch LD, where MPI001 raised wrong_socket_ifname at 0.986). The lab recording of UCX_NET_DEVICES=eth9 on
two network-namespace nodes prints the WARN and then the ERROR, and the job never starts
(fixtures/incidents/mpirun-ucx-net-devices-netns).
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.openmpi import OpenMpi

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HEALTHY = FIXTURES / "cases" / "healthy-mlperf-v31-ctuning-aws-g5-2xa10g-mxnet-resnet-ucx-warn" / "input"
LAB = FIXTURES / "incidents" / "mpirun-ucx-net-devices-netns"

WARN = ("[1696449352.331317] [i-0832507cefdd146b6:165  :0]     ucp_context.c:964  UCX  WARN  network device ':1' is "
        "not available, please use one or more of: 'ens5'(tcp), 'lo'(tcp)\n")


def test_the_warn_alone_gives_no_interface_error() -> None:
    assert [f for f in parse_lines(OpenMpi, WARN, source="x", node="") if f.KIND == "net.ifname_error"] == []


def test_a_run_that_printed_the_warn_and_finished_is_healthy() -> None:
    report = diagnose_files([str(HEALTHY)])
    assert report.healthy and not report.diagnoses


def test_the_error_after_it_is_still_the_wrong_interface() -> None:
    report = diagnose_files([str(LAB)])
    assert report.diagnoses[0].cause == "wrong_socket_ifname" and "MPI001" in report.diagnoses[0].rules
