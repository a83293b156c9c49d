"""Whether the IOMMU translates DMA (a sign for broken GPU peer-to-peer): kernel command line tokens
(/proc/cmdline, dmesg "Command line:") and the kernel's own "Default domain type" line; and the DMA the IOMMU refused
(AMD-Vi IO_PAGE_FAULT), one sys.iommu_fault per device.

Sample input:
    BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=/dev/sda2 ro intel_iommu=on
    [    0.512345] iommu: Default domain type: Translated
    [    0.401234] DMAR: IOMMU enabled
    Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]
    [ 4703.568967] AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x000e address=0x000003f80001b100 flags=0x0030]
    [1478401.486981] DMAR: [DMA Write] Request device [02:00.0] fault addr cd139000 [fault reason 05] PTE Write access is not set
    DMAR: [DMA Write NO_PASID] Request device [00:02.0] fault addr 0xb97ff000 [fault reason 0x05] PTE Write access is not set

Intel's DMAR lines name the device by its bus address only, never its driver: whether it is a GPU the line does not say.
A fault is a GPU's DMA (gpu_dma) where the nvidia driver printed it, or, for DMAR, where two or more devices' writes were
refused: GPUs writing into each other's memory fault in pairs; one device alone (an iGPU, a disk controller) faults for
reasons of its own.
"""
from __future__ import annotations


from doctor.facts.hardware import Iommu, IommuFault
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_TOKEN = lazy_compile(r"(?:^|\s)(?P<tok>(?:intel_iommu|amd_iommu|iommu)=(?P<value>[\w,]+))")
_DOMAIN = lazy_compile(r"iommu: Default domain type: (?P<type>\w+)")
# kernel 5.x+: dev_err prefix '<driver> <pci address>: AMD-Vi: ...'; older kernels name the device inside the brackets
_AMD_FAULT = lazy_compile(r"(?:(?P<driver>[\w-]+) (?P<pfx>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): )?AMD-Vi: Event logged "
                          r"\[IO_PAGE_FAULT (?:device=(?P<dev>[0-9a-fA-F:.]+) )?domain=\S+ address=(?P<addr>0x[0-9a-fA-F]+)")

# Intel VT-d: "[DMA Write]" (to 5.x) or "[DMA Write NO_PASID]" / "[DMA Read PASID 0x1]" (5.x+); some kernels print the
# bus and slot as 0x02:0x00.0
_DMAR_FAULT = lazy_compile(r"DMAR: \[DMA (?P<access>Read|Write)\b[^\]]*\] Request device \[(?:0x)?(?P<bus>[0-9a-fA-F]{2}):"
                           r"(?:0x)?(?P<slot>[0-9a-fA-F]{2})\.(?P<fn>[0-7])\](?: fault addr (?P<addr>(?:0x)?[0-9a-fA-F]+))?")


class IommuLines(LineProbe):
    name = "iommu"
    yields = ("sys.iommu", "sys.iommu_fault")
    triggers = ("iommu", "IOMMU enabled", "IO_PAGE_FAULT", "DMAR: [DMA ")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.domain: tuple[int, str, str, bool] | None = None     # the kernel's word wins
        self.cmdline: tuple[int, str, str, bool] | None = None
        self.enabled: tuple[int, str] | None = None
        self.faults: dict[str, list] = {}      # device -> [first line_no, first line, driver, count, first address, access]

    def _fault(self, line_no: int, line: str) -> bool:
        if "DMAR: [DMA " in line and (d := _DMAR_FAULT.search(line)):
            device, driver, address, access = f"{d['bus']}:{d['slot']}.{d['fn']}", "", d["addr"] or "", d["access"].lower()
        elif "IO_PAGE_FAULT" in line and (m := _AMD_FAULT.search(line)):
            device, driver, address, access = m["pfx"] or m["dev"], m["driver"] or "", m["addr"], ""
        else:
            return False
        entry = self.faults.setdefault(device, [line_no, line, driver, 0, address, access])
        entry[3] += 1
        return True

    def feed(self, line_no: int, line: str) -> None:
        if self._fault(line_no, line):
            return
        m = _DOMAIN.search(line)
        if m:
            self.domain = (line_no, line, f"default domain {m['type']}", m["type"].lower().startswith("transl"))
            return
        tokens = [(t["tok"], t["value"].split(",")) for t in _TOKEN.finditer(line)]
        if tokens:
            values = {v for _, vs in tokens for v in vs}
            translating = bool(values & {"on", "1", "force", "strict"}) and not values & {"pt", "off", "0"}
            self.cmdline = (line_no, line, " ".join(t for t, _ in tokens), translating)
        elif "DMAR: IOMMU enabled" in line:
            self.enabled = (line_no, line)

    def finish(self) -> None:
        chosen = self.domain or self.cmdline
        if not chosen and self.enabled:
            chosen = (self.enabled[0], self.enabled[1], "DMAR: IOMMU enabled", True)
        if chosen:
            number, line, setting, translating = chosen
            self.ctx.emit(Iommu, number, line, node=self.ctx.node, rank=-1, setting=setting, translating=translating)
        writers = sum(1 for entry in self.faults.values() if not entry[2] and entry[5] == "write")
        for device, (number, line, driver, count, address, access) in self.faults.items():
            gpu_dma = driver == "nvidia" or (not driver and access == "write" and writers >= 2)
            self.ctx.emit(IommuFault, number, line, node=self.ctx.node, rank=-1, device=device, driver=driver,
                          faults=count, address=address, access=access, gpu_dma=gpu_dma)
