"""InfiniBand/RoCE lines in the wordings of older NCCL releases and of partial pastes (issue 12, fix-ib).

Each text is real output from the case named beside it; each test asserts what the probe must read from it.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.nccl_errors import NcclErrors

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _facts(probe, path: Path, kind: str) -> list:  # type: ignore[no-untyped-def]
    text = path.read_text(encoding="utf-8")
    return [f for f in parse_lines(probe, text, source=path.name, node="input") if f.KIND == kind]


def test_nccl_2_4_to_2_7_completion_error_without_peer_is_a_failed_completion() -> None:
    # NCCL 2.4-2.7: "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129" (no "from peer")
    [call] = _facts(NcclErrors, CASES / "roce-gid-nccl-426" / "input" / "nccl_warn.log", "sys.call_failed")
    assert (call.call, call.errno) == ("ibv_poll_cq", "IBV_WC_12")


def test_every_completion_error_line_of_an_nccl_2_7_log_is_read() -> None:
    calls = _facts(NcclErrors, CASES / "mtu-nccl-709" / "input" / "nccl.log", "sys.call_failed")
    assert calls and all(c.errno == "IBV_WC_12" for c in calls if c.call == "ibv_poll_cq")


def test_mlx5_health_poll_miss_is_a_firmware_fault_of_that_adapter() -> None:
    from probes.driver_firmware import DriverFirmwareLines
    [fault] = _facts(DriverFirmwareLines, CASES / "firmware-spdk-2965" / "input" / "dmesg.txt", "hw.firmware_fault")
    assert (fault.driver, fault.device) == ("mlx5_core", "0000:da:00.1")
    assert fault.message.startswith("device's health compromised")


def test_a_driver_asking_for_newer_firmware_is_no_firmware_fault() -> None:
    from probes.driver_firmware import DriverFirmwareLines
    path = CASES.parent / "probes" / "driver_firmware" / "dmesg-mlx4-ice-old-firmware.txt"
    assert _facts(DriverFirmwareLines, path, "hw.firmware_fault") == []
    assert len(_facts(DriverFirmwareLines, path, "hw.firmware_warning")) == 3
