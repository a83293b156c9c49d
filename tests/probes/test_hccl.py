"""Ascend HCCL's wordings read as the facts NCCL and c10d readers emit for the same failures.

Real text: HCCL's fault-diagnosis guide (hicann/hccl) and Ascend/pytorch's troubleshooting cases, joined as
fixtures/cases from held-out batch LZ.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
from probes.hccl import Hccl

CASES = Path(__file__).resolve().parents[2] / "fixtures/cases"


def facts(case: str, kind: str) -> list:
    found = gather_files([str(CASES / case / "input")], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return [f for f in found if f.KIND == kind]


def test_listen_failed_on_a_port_is_a_bind_error() -> None:
    [err] = facts("port-in-use-hccl-faultdiag-ei0019-root-info-port-60000", "net.bind_error")
    assert (err.host, err.port) == ("192.168.1.100", 60000)     # the interface after % is not part of the address


def test_ei0019_summary_is_a_bind_error() -> None:
    [err] = facts("port-in-use-hccl-faultdiag-ei0019-screen-port-50001-already-bound", "net.bind_error")
    assert (err.host, err.port) == ("192.168.1.100", 50001)


def test_hccl_socket_ifname_not_found() -> None:
    [err] = facts("ifname-hccl-faultdiag-ei0001-socket-ifname-abc-not-found", "net.ifname_error")
    assert (err.ifname, err.transport) == ("abc", "hccl")


def test_heartbeat_lost_names_the_peer() -> None:
    [lost] = facts("desync-ascend-pytorch-ei0002-heartbeat-lost-card-exited", "collective.peer_lost")
    assert (lost.peer, lost.reason) == ("90.90.92.240/1", "exited")


def test_other_hccl_errors_are_not_read_as_these() -> None:
    text = ("[ERROR] HCCL(925892,alltoall_test):2025-10-28-16:34:59.634.437 [sal.cc:504] [925892][InitGroupStage]"
            "[EnvConfig]get host ip fail by socket Ifname. name[lo] ip[127.10.0.1%lo]\n"
            "ExceptionType:[Notify Wait Timeout], Possible Reason:1. Process has exited")
    assert parse_lines(Hccl, text) == []


def test_ei0005_arguments_inconsistent_between_ranks_is_a_mismatch() -> None:
    [m] = facts("desync-hccl-faultdiag-ei0005-parameter-count-mismatch", "collective.mismatch")
    assert m.op == "" and "parameter count, local end 16512, remote end 8320" in m.origin.text


def test_parameter_conflict_of_the_two_ends_is_one_mismatch_naming_the_local_op() -> None:
    """Three lines (tag, cmdType, op each fail the check): one mismatch, the first, which names the local collective."""
    [m] = facts("desync-hccl-faultdiag-ei0005-cmd-tag-allgather-vs-allreduce", "collective.mismatch")
    assert m.op == "AllGather" and m.origin.line == 1
