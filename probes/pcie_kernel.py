"""The kernel's PCIe bandwidth notice: a device whose link trained below what it and its slot can do.
Printed at enumeration, so it is not the idle power-saving downshift GPUs do later.

Sample input:
    pci 0000:0b:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x16 link at
    0000:00:03.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)
"""
from __future__ import annotations


from doctor.facts.hardware import PcieLink
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_LIMITED = lazy_compile(r"(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): [\d.]+ Gb/s available PCIe "
                      r"bandwidth, limited by (?P<speed>[\d.]+) GT/s PCIe x(?P<width>\d+) link at \S+ \(capable of "
                      r"[\d.]+ Gb/s with (?P<cap_speed>[\d.]+) GT/s PCIe x(?P<cap_width>\d+) link\)")
GEN_OF_GTS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


def gen_of(gts: str) -> int:
    return GEN_OF_GTS.get(float(gts), -1)


class PcieKernelLines(LineProbe):
    name = "pcie_kernel"
    yields = ("gpu.pcie",)
    triggers = ("available PCIe bandwidth, limited by",)

    def feed(self, line_no: int, line: str) -> None:
        m = _LIMITED.search(line)
        if not m:
            return
        gen, gen_max = gen_of(m["speed"]), gen_of(m["cap_speed"])
        width, width_max = int(m["width"]), int(m["cap_width"])
        self.ctx.emit(PcieLink, line_no, line, bus_id=m["bdf"], gen=gen, gen_max=gen_max, width=width, width_max=width_max,
                      gen_degraded=0 < gen < gen_max, width_degraded=0 < width < width_max, load="boot", source="kernel")
