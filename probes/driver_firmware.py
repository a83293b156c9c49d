"""NIC drivers saying in the kernel log that the adapter firmware is older than they need (dmesg / journalctl -k).

Sample input:
    [  939.318810] mlx4_en 0000:0d:00.0: LSO not supported, please upgrade to later FW version to enable LSO
    mlx4_core 0000:04:00.0: Installed FW has unsupported command interface revision 2
    ice 0000:17:00.0: The driver for the device detected an older version of the NVM image v1.1 than expected v1.5. Please update the NVM image.
"""
from __future__ import annotations

from doctor.facts.hostconf import FirmwareWarning
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_DRIVER = r"(?P<driver>mlx[45]_(?:core|en|ib)|ice|i40e|bnxt_en|irdma)\s+(?P<dev>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
# the driver's own words: an upgrade asked for, or a firmware interface it does not support
_OLD_FW = lazy_compile(_DRIVER + r":\s+(?P<msg>.*(?:please upgrade to (?:a )?later FW version|Installed FW has unsupported command "
                       r"interface revision|detected an older version of the NVM image|Please update the NVM image).*)", )


class DriverFirmwareLines(LineProbe):
    name = "driver_firmware"
    yields = ("hw.firmware_warning",)
    triggers = ("FW version", "unsupported command interface", "older version of the NVM image", "update the NVM image")

    def feed(self, line_no: int, line: str) -> None:
        m = _OLD_FW.search(line)
        if m:
            self.ctx.emit(FirmwareWarning, line_no, line, device=m["dev"], driver=m["driver"], message=m["msg"].strip()[:200])
