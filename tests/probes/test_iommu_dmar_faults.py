"""iommu: Intel VT-d's DMAR fault lines ("DMAR: [DMA Write] Request device [02:00.0] ... PTE Write access is not
set") are IOMMU faults as AMD-Vi's IO_PAGE_FAULT are (issue 12, held-out batch MT: tensorflow#32654, where two GPUs'
peer-to-peer writes were refused and nothing read the lines). Two devices whose writes DMAR refused are GPU DMA
(gpu_dma), which PEER520 reads; one alone is not."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.iommu import IommuLines

REPO = Path(__file__).resolve().parents[2]
TWO_GPUS = REPO / "fixtures" / "cases" / "p2p-tensorflow-32654-dmar-iommu-fault-hang" / "input" / "dmesg.txt"
ONE_IGPU = REPO / "fixtures" / "logs" / "dmar-igfx-write-fault-thinkpad-x201.txt"


def faults(path: Path) -> list:
    return [f for f in parse_lines(IommuLines, path.read_text()) if f.KIND == "sys.iommu_fault"]


def test_each_faulting_device_is_one_fact_with_its_count() -> None:
    found = {f.get("device"): (f.get("faults"), f.get("access"), f.get("driver")) for f in faults(TWO_GPUS)}
    assert set(found) == {"02:00.0", "82:00.0"}
    assert all(access == "write" and driver == "" and count >= 1 for count, access, driver in found.values())


def test_the_5x_wording_with_no_pasid_is_read() -> None:
    (fault,) = faults(ONE_IGPU)
    assert fault.get("device") == "00:02.0" and fault.get("access") == "write" and fault.get("address") == "0xb97ff000"


def test_a_fault_status_line_alone_is_no_fault() -> None:
    assert not [f for f in parse_lines(IommuLines, "[1478401.486621] DMAR: DRHD: handling fault status reg 502\n")
                if f.KIND == "sys.iommu_fault"]


def test_two_writers_are_gpu_dma_and_one_is_not() -> None:
    assert all(f.get("gpu_dma") for f in faults(TWO_GPUS))
    assert not any(f.get("gpu_dma") for f in faults(ONE_IGPU))
