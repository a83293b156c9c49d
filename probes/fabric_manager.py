"""NVIDIA Fabric Manager not running on an NVSwitch system: its systemd status and journal, and its own log line
when it refuses a driver of another version.

Sample input:
    Process: 444114 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=1/FAILURE)
    nvidia-fabricmanager.service: Failed with result 'exit-code'.
    fabric manager NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.54.15.
"""
from __future__ import annotations

from doctor.facts.gpu import FabricManagerState
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

# FM's own words (R450-R580: "don't match"; newer: "doesn't match")
_MISMATCH = lazy_compile(r"driver interface version (?P<fm>\d+(?:\.\d+)*) do(?:n't|esn't|es not) match with driver version "
                         r"(?P<drv>\d+(?:\.\d+)*)")
# systemd about the fabricmanager unit: its start command exited non-zero, or the unit failed
# or FM's start-up script refusing to start it: on NVL5+ systems (HGX B200, GB200) FM needs the InfiniBand user-MAD
# module: 'Kernel module "ib_umad" has not been loaded, fabric manager cannot be started' (CanvOS PR 700, batch CC)
_FAILED = lazy_compile(r"(?:nv-fabricmanager|nvidia-fabricmanager).*(?:status=[1-9]\d*/|Failed with result|failed because|"
                       r"Failed to start)|[Ff]abric [Mm]anager cannot be started")


class FabricManagerLines(LineProbe):
    name = "fabric_manager"
    yields = ("gpu.fabric_manager",)
    triggers = ("fabricmanager", "fabric manager")

    def feed(self, line_no: int, line: str) -> None:
        m = _MISMATCH.search(line)
        if m:
            self.ctx.emit(FabricManagerState, line_no, line, state="version_mismatch", fm_version=m["fm"],
                          driver_version=m["drv"])
        elif _FAILED.search(line):
            self.ctx.emit(FabricManagerState, line_no, line, state="failed")
