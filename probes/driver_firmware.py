"""NIC drivers saying in the kernel log that the adapter firmware is older than they need, or that it stopped
answering them (dmesg / journalctl -k).

Sample input:
    [  939.318810] mlx4_en 0000:0d:00.0: LSO not supported, please upgrade to later FW version to enable LSO
    mlx4_core 0000:04:00.0: Installed FW has unsupported command interface revision 2
    ice 0000:17:00.0: The driver for the device detected an older version of the NVM image v1.1 than expected v1.5. Please update the NVM image.
    mlx5_core 0000:da:00.1: poll_health:840:(pid 0): device's health compromised - reached miss count
    mlx5_core 0000:5e:00.0: synd 0x7: irisc not responding
"""
from __future__ import annotations

from doctor.facts.hostconf import FirmwareFault, FirmwareWarning
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_DRIVER = r"(?P<driver>mlx[45]_(?:core|en|ib)|ice|i40e|bnxt_en|irdma)\s+(?P<dev>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
# the driver's own words: an upgrade asked for, or a firmware interface it does not support
_OLD_FW = lazy_compile(_DRIVER + r":\s+(?P<msg>.*(?:please upgrade to (?:a )?later FW version|Installed FW has unsupported command "
                       r"interface revision|detected an older version of the NVM image|Please update the NVM image).*)", )

# mlx5_core's health poll (drivers/net/ethernet/mellanox/mlx5/core/health.c): the firmware bumps a health counter every
# few ms; when it stops, "device's health compromised - reached miss count", then the health buffer's syndrome
# ("irisc not responding", "FW internal error"); a command the firmware never completes: "... timeout. Will cause a
# leak of a command resource"; init: "FW is unable to respond to initialization segment reads"
_FW_STOPPED = lazy_compile(r"(?P<driver>mlx5_core)\s+(?P<dev>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]):\s+(?:\S+:\d+:\(pid \d+\):\s+)?"
                           r"(?P<msg>.*(?:health compromised - reached miss count|FW is unable to respond|irisc not responding|"
                           r"FW internal error|timeout\. Will cause a leak of a command resource).*)")


class DriverFirmwareLines(LineProbe):
    name = "driver_firmware"
    yields = ("hw.firmware_warning", "hw.firmware_fault")
    triggers = ("FW version", "unsupported command interface", "older version of the NVM image", "update the NVM image",
                "health compromised", "FW is unable to respond", "irisc not responding", "FW internal error",
                "Will cause a leak of a command resource")

    def feed(self, line_no: int, line: str) -> None:
        m = _OLD_FW.search(line)
        if m:
            self.ctx.emit(FirmwareWarning, line_no, line, device=m["dev"], driver=m["driver"], message=m["msg"].strip()[:200])
        elif m := _FW_STOPPED.search(line):
            self.ctx.emit(FirmwareFault, line_no, line, device=m["dev"], driver=m["driver"], message=m["msg"].strip()[:200])
