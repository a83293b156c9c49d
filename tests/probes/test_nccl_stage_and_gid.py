"""nccl.log's init stage and the GID of NCCL 2.2x's QP connect line (issue 12, confident wrong answers).

Each text is real output from the case named beside it; each test asserts what the probe must read from it.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_document, parse_lines
from probes.driver_firmware import DriverFirmwareLines
from probes.ib_devinfo import IbvDevinfo
from probes.nccl_errors import NcclErrors, _gid_text
from probes.nccl_log import NcclLogProbe

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _facts(probe, path: Path, kind: str) -> list:  # type: ignore[no-untyped-def]
    text = path.read_text(encoding="utf-8")
    return [f for f in parse_lines(probe, text, source=path.name, node="input") if f.KIND == kind]


def test_a_log_that_stops_while_reading_the_topology_is_at_the_topology_stage() -> None:
    [log] = _facts(NcclLogProbe, CASES / "env-nccl-1008" / "input" / "all_reduce_perf.log", "nccl.log")
    assert log.stage == "topology"


def test_bootstrap_and_network_lines_alone_name_no_stage() -> None:
    [log] = _facts(NcclLogProbe, CASES / "p2p-nccltests-115" / "input" / "all_reduce_perf.log", "nccl.log")
    assert log.stage == ""


def test_the_furthest_stage_wins_over_the_last_line() -> None:
    text = ("n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
            "n1:1:2 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
            "n1:1:2 [0] NCCL INFO Topology detection: network path /sys/devices/x is not a PCI device\n")
    [log] = [f for f in parse_lines(NcclLogProbe, text, source="x.log", node="n1") if f.KIND == "nccl.log"]
    assert log.stage == "complete"


def test_the_connect_line_gid_reaches_the_failed_modify_qp() -> None:
    calls = _facts(NcclErrors, CASES / "roce-gid-nccl-1657" / "input" / "nccl.log", "sys.call_failed")
    [qp] = [c for c in calls if c.call == "ibv_modify_qp"]
    assert (qp.errno, qp.gid_index, qp.local_gid) == ("ENODEV", 0, "fe80::5ea7:21ff:fe41:8a1a")


def test_a_bare_modify_qp_warn_has_no_gid() -> None:
    [qp] = _facts(NcclErrors, CASES / "roce-gid-nccl-718" / "input" / "nccl_warn.log", "sys.call_failed")
    assert (qp.gid_index, qp.local_gid) == (-1, "")


def test_gid_words_are_little_endian_and_bad_widths_give_nothing() -> None:
    assert _gid_text("80FE", "1A8A41FEFF21A75E") == "fe80::5ea7:21ff:fe41:8a1a"
    assert _gid_text("0", "0") == "::"
    assert _gid_text("F" * 20, "0") == ""


# InfiniBand/RoCE and NIC firmware lines in older NCCL wordings and in kernel logs (issue 12, fix-ib)

def test_nccl_2_4_to_2_7_completion_error_without_peer_is_a_failed_completion() -> None:
    # NCCL 2.4-2.7: "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129" (no "from peer")
    [call] = _facts(NcclErrors, CASES / "roce-gid-nccl-426" / "input" / "nccl_warn.log", "sys.call_failed")
    assert (call.call, call.errno) == ("ibv_poll_cq", "IBV_WC_12")


def test_every_completion_error_line_of_an_nccl_2_7_log_is_read() -> None:
    calls = _facts(NcclErrors, CASES / "mtu-nccl-709" / "input" / "nccl.log", "sys.call_failed")
    assert calls and all(c.errno == "IBV_WC_12" for c in calls if c.call == "ibv_poll_cq")


def test_mlx5_health_poll_miss_is_a_firmware_fault_of_that_adapter() -> None:
    [fault] = _facts(DriverFirmwareLines, CASES / "firmware-spdk-2965" / "input" / "dmesg.txt", "hw.firmware_fault")
    assert (fault.driver, fault.device) == ("mlx5_core", "0000:da:00.1")
    assert fault.message.startswith("device's health compromised")


def test_a_driver_asking_for_newer_firmware_is_no_firmware_fault() -> None:
    path = CASES.parent / "probes" / "driver_firmware" / "dmesg-mlx4-ice-old-firmware.txt"
    assert _facts(DriverFirmwareLines, path, "hw.firmware_fault") == []
    assert len(_facts(DriverFirmwareLines, path, "hw.firmware_warning")) == 3


def test_ibv_devinfo_gid_lines_pasted_without_their_header_are_read() -> None:
    path = CASES / "roce-gid-nccl-769" / "input" / "ibv_devinfo_v.txt"
    text = path.read_text(encoding="utf-8")
    assert IbvDevinfo.sniff(text)
    facts = parse_document(IbvDevinfo, text, source=path.name, node="input")
    gids = {f.index: (f.gid, f.version) for f in facts if f.KIND == "ib.gid"}
    assert gids[1] == ("fe80::ac0:ebff:feda:1cfb", "v2") and gids[3] == ("::ffff:200.0.209.6", "v2")
    assert not [f for f in facts if f.KIND == "ib.port"]      # no port header, no state line: no port is invented


REDACTED_SOCKET_LINES = {
    "NCCL INFO NET/Socket : Using [0]ib0.<ip>": "ib0",                        # fixtures/cases/ib-not-used-sglang-1427
    "beijing:47853:47853 [0] NCCL INFO Bootstrap : Using eno1:avahi:xxx.xxx.xxx.xxx<0>": "eno1",   # nccl-tests#162
}


def test_an_interface_whose_address_the_poster_blanked_out_is_still_read() -> None:
    for line, name in REDACTED_SOCKET_LINES.items():
        got = [(f.name, f.address) for f in parse_lines(NcclLogProbe, line + "\n") if f.KIND == "net.interface"]
        assert got == [(name, "")], line


def test_a_readable_address_is_not_read_twice() -> None:
    line = "node1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
    assert [(f.name, f.address) for f in parse_lines(NcclLogProbe, line) if f.KIND == "net.interface"] == [("eth0", "10.0.0.1")]


def test_completion_error_gids_of_nccl_2_19_are_read_and_a_routable_ipv6_gid_is_roce() -> None:
    # "... (Recv) localGid fd00:...:3:ff22 remoteGidsfd00:...:3:ff1f": no space after remoteGids, RoCE v2 IPv6 GIDs
    calls = _facts(NcclErrors, CASES / "route-nccl-1405-same-subnet-nics" / "input" / "nccl.log", "sys.call_failed")
    first = calls[0]
    assert (first.call, first.errno, first.roce) == ("ibv_poll_cq", "IBV_WC_12", True)
    assert (first.local_gid, first.remote_gid) == ("fd00:1148:9000:5000:4:200:3:ff22", "fd00:1148:9000:5000:4:200:3:ff1f")


def test_a_link_local_gid_built_from_a_mac_is_roce_and_one_built_from_a_port_guid_is_infiniband() -> None:
    # RoCE: fe80:: + EUI-64 of the netdev's MAC (ff:fe inside); InfiniBand: fe80:: + the port GUID
    [roce] = _facts(NcclErrors, CASES / "mtu-nccl-1524" / "input" / "nccl_warn.log", "sys.call_failed")[:1]
    assert roce.roce and roce.remote_gid == "fe80::e61d:2dff:fef2:9fa0"
    ib = _facts(NcclErrors, CASES.parent / "logs" / "nccl-2.17-ib-completion-retry-exceeded.log", "sys.call_failed")
    ib = [c for c in ib if c.call == "ibv_poll_cq"]
    assert ib and not any(c.roce for c in ib) and ib[0].local_gid == "fe80::a088:c203:65:4a1e"
