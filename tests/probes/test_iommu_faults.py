"""IOMMU faults on a device's DMA, read by probes/iommu.py (held-out batch AL). Lines verbatim from public threads:
NVIDIA/cuda-samples#48 (fixtures/cases/p2p-cudasamples-48-amd-vi-page-fault, kernel 5.x form with the driver prefix)
and pytorch/pytorch#52142 (older kernel form: the device inside the brackets, no driver)."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.iommu import IommuLines

NVIDIA_PREFIXED = """\
Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]
Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x9e139068 flags=0x0020]
Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x800007c0 flags=0x0020]
"""
OLDER_FORM = ("[ 4703.568967] AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x000e address=0x000003f80001b100 "
              "flags=0x0030]\n")
NO_FAULT = "[    0.512345] iommu: Default domain type: Translated\n"


def faults(text: str) -> list[dict]:
    return [f.as_dict() for f in parse_lines(IommuLines, text, source="dmesg.log", node="n1") if f.KIND == "sys.iommu_fault"]


def test_faults_of_one_gpu_are_one_fact_with_the_driver_and_count() -> None:
    (f,) = faults(NVIDIA_PREFIXED)
    assert (f["device"], f["driver"], f["faults"], f["address"]) == ("0000:07:00.0", "nvidia", 3, "0x80000040")


def test_the_older_form_names_the_device_but_no_driver() -> None:
    (f,) = faults(OLDER_FORM)
    assert (f["device"], f["driver"], f["faults"]) == ("41:00.0", "", 1)


def test_the_iommu_setting_alone_is_no_fault() -> None:
    assert faults(NO_FAULT) == []
    (setting,) = [f for f in parse_lines(IommuLines, NO_FAULT, source="dmesg.log", node="n1") if f.KIND == "sys.iommu"]
    assert setting.translating
