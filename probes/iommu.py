"""Whether the IOMMU translates DMA (a sign for broken GPU peer-to-peer): kernel command line tokens
(/proc/cmdline, dmesg "Command line:") and the kernel's own "Default domain type" line.

Sample input:
    BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=/dev/sda2 ro intel_iommu=on
    [    0.512345] iommu: Default domain type: Translated
    [    0.401234] DMAR: IOMMU enabled
"""
from __future__ import annotations


from doctor.facts.hardware import Iommu
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_TOKEN = lazy_compile(r"(?:^|\s)(?P<tok>(?:intel_iommu|amd_iommu|iommu)=(?P<value>[\w,]+))")
_DOMAIN = lazy_compile(r"iommu: Default domain type: (?P<type>\w+)")


class IommuLines(LineProbe):
    name = "iommu"
    yields = ("sys.iommu",)
    triggers = ("iommu", "IOMMU enabled")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.domain: tuple[int, str, str, bool] | None = None     # the kernel's word wins
        self.cmdline: tuple[int, str, str, bool] | None = None
        self.enabled: tuple[int, str] | None = None

    def feed(self, line_no: int, line: str) -> None:
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
