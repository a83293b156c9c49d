"""An RDMA tool that found no RDMA device in the OS: the HCA, if the machine has one, was not brought up by a driver.

ibstatus (infiniband-diags' script) reads /sys/class/infiniband and, with nothing there, prints
"Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)" (trinity#219: firmware too old for the
driver; azhpc-images#51: an OFED that dropped the card). Which of the usual causes it is, the line does not say (a
narrowing sign, doctor/judgement/context.py). ibv_devinfo's "No IB devices found" (the live probe skips on it) is not
read yet: no recorded sample of it with a cause.

Sample input:
    [root@node045 ~]# ibstatus
    Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)
"""
from __future__ import annotations

from doctor.facts.fabric import RdmaNoDevice
from doctor.probing.contract import LineProbe

WORDINGS = (("sys files not found (/sys/class/infiniband", "ibstatus"),)


class RdmaAbsent(LineProbe):
    name = "rdma_absent"
    yields = ("rdma.no_device",)
    triggers = tuple(words for words, _ in WORDINGS)

    def feed(self, line_no: int, line: str) -> None:
        tool = next((tool for words, tool in WORDINGS if words in line), None)
        if tool:
            self.ctx.emit(RdmaNoDevice, line_no, line, tool=tool)
