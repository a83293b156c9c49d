"""Derived launch/environment facts (doctor/aggregate_launch.py) on real text and on the edges of NCCL's name rule."""
from __future__ import annotations

from doctor.aggregate import aggregate
from doctor.aggregate_launch import _matches
from doctor.probing.contract import parse_lines
from probes.env_vars import EnvVars
from probes.nccl_errors import NcclErrors
from probes.nccl_log import NcclLogProbe
from probes.versions import Versions

# fixtures/cases/wrong-ifname-nccltests-219 (command line and the failing host's line)
COMMAND = ("mpirun -np 2 -pernode --allow-run-as-root -hostfile host.txt -mca btl_tcp_if_include 192.168.0.0/24 "
           "-x NCCL_SOCKET_IFNAME=enp6s0 ./nccl-tests/build/all_reduce_perf -b 8 -e 128M -f 2 -g 2 -c 0\n")
FAILURE = "fengyun: Test NCCL failure common.cu:959 'internal error - please report this issue to the NCCL developers / '\n"
USING = "node1:1:1 [0] NCCL INFO Bootstrap : Using enp6s0:192.168.0.2<0>\n"


def facts_of(*parts):
    out = []
    for probe, text in parts:
        out += parse_lines(probe, text)
    return aggregate(out)


def unused(facts):
    return [f for f in facts if f.KIND == "net.ifname_unused"]


def test_setting_that_nccl_never_used_before_an_internal_error() -> None:
    (u,) = unused(facts_of((EnvVars, COMMAND), (NcclErrors, FAILURE)))
    assert (u.ifname, u.failure, u.interfaces_seen, u.origin.text.startswith("fengyun")) == ("enp6s0", "internal", 0, True)


def test_the_setting_used_on_a_bootstrap_line_clears_it() -> None:
    assert not unused(facts_of((EnvVars, COMMAND), (NcclErrors, FAILURE), (NcclLogProbe, USING)))


def test_no_failure_no_fact() -> None:
    assert not unused(facts_of((EnvVars, COMMAND)))


def test_nccl_interface_rule_prefix_exact_and_lists() -> None:
    assert _matches("eth", "eth0") and _matches("enp4s0,enp6s0", "enp6s0") and _matches("=eth0", "eth0")
    assert not _matches("=eth", "eth0") and not _matches("eth2", "eth0") and not _matches("", "eth0")


def test_two_cuda_majors_of_one_wheel() -> None:
    text = "[pip3] nvidia-nccl-cu12==2.29.3\n[pip3] nvidia-nccl-cu13==2.29.7\n[pip3] nvidia-cublas-cu12==12.4.5.8\n"
    (w,) = [f for f in facts_of((Versions, text)) if f.KIND == "pkg.wheel_conflict"]
    assert (w.package, w.count, w.variants) == ("nvidia-nccl", 2, "nvidia-nccl-cu12==2.29.3, nvidia-nccl-cu13==2.29.7")


def test_nccl_tests_with_fewer_ranks_than_mpirun_started() -> None:
    """nccl-tests#294 (verbatim lines): mpirun -np 16 of all_reduce_perf, NCCL's comm says nranks 1."""
    from doctor.aggregate_launch import bench_ranks_short
    from probes.launch_command import LaunchCommand
    from probes.nccl_tests import NcclTests
    launch = ("mpirun -np 16 -N 8 -hostfile hostfile --bind-to none -mca btl tcp,self -mca coll_hcoll_enable 0 -x PATH "
              "-x LD_LIBRARY_PATH -x NCCL_DEBUG=INFO /home/ubuntu/nccl-tests/build/all_reduce_perf -b 128M -e 2048M "
              "-f 2 -t 1 -g 1 -c 1 -n 10\n")
    output = ("h100-test-rg-1:19570:19570 [0] NCCL INFO comm 0x55ba38f2abd0 rank 0 nranks 1 cudaDev 0 busId 200010 - "
              "Destroy COMPLETE\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0\n")
    facts = parse_lines(LaunchCommand, launch) + parse_lines(NcclTests, output)
    (short,) = bench_ranks_short(facts)
    assert (short.launched, short.per_process, short.nranks) == (16, 1, 1)
    # the same output under mpirun -np 1 is one rank of one process: nothing missing
    assert not bench_ranks_short(parse_lines(LaunchCommand, launch.replace("-np 16", "-np 1")) + parse_lines(NcclTests, output))
