"""Loaded kernel modules from `/proc/modules` or `lsmod`: the GPU driver, GPUDirect RDMA's peer-memory
module (nvidia_peermem, or the older nv_peer_mem) and the RDMA stack. A complete listing also yields a
kernel.modules summary, so rules can say "loaded" and "not loaded" apart from "not looked at".

Sample input (/proc/modules, then lsmod):
    nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)
    nvidia 56799232 1402 nvidia_uvm,nvidia_peermem,nvidia_modeset, Live 0x0000000000000000 (POE)
    Module                  Size  Used by
    mlx5_ib               454656  0
"""
from __future__ import annotations


from doctor.facts.hardware import KernelModule, ModuleSummary
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_PROC = lazy_compile(r"^(?P<name>\w+) \d+ (?:\d+|-) \S+ (?:Live|Loading|Unloading) 0x[0-9a-f]+")
_LSMOD_HEADER = lazy_compile(r"^Module\s+Size\s+Used by\s*$")
_LSMOD = lazy_compile(r"^(?P<name>\w+)\s+\d+\s+\d+(?:\s+\S+)?\s*$")
NOTABLE = ("nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem", "nv_peer_mem", "nvidia_fs",
           "gdrdrv", "ib_core", "ib_uverbs", "rdma_ucm", "mlx5_core", "mlx5_ib", "mlx4_ib", "irdma", "bnxt_re", "efa",
           "ib_ipoib")
RDMA = ("ib_core", "ib_uverbs", "mlx5_ib", "mlx4_ib", "irdma", "bnxt_re", "efa")


class KernelModules(DocumentProbe):
    name = "kernel_modules"
    yields = ("kernel.module", "kernel.modules")
    live = ("cat", "/proc/modules")

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = [x for x in head.splitlines()[:40] if x.strip()]
        if any(_LSMOD_HEADER.match(x) for x in lines[:5]):
            return True
        return len(lines) >= 3 and sum(1 for x in lines if _PROC.match(x)) >= len(lines) * 0.8

    def parse(self, text: str, ctx: ParseContext) -> None:
        names: set[str] = set()
        first = (0, "")
        lsmod = False
        for number, line in enumerate(text.splitlines(), start=1):
            if _LSMOD_HEADER.match(line):
                lsmod, first = True, (number, line)
                continue
            m = _PROC.match(line) or (_LSMOD.match(line) if lsmod else None)
            if not m:
                continue
            first = first if first[0] else (number, line)
            names.add(m["name"])
            if m["name"] in NOTABLE:
                ctx.emit(KernelModule, number, line, node=ctx.node, rank=-1, name=m["name"])
        if names:
            ctx.emit(ModuleSummary, first[0], f"{len(names)} modules loaded", node=ctx.node, rank=-1, count=len(names),
                     nvidia="nvidia" in names, peermem=bool({"nvidia_peermem", "nv_peer_mem"} & names),
                     rdma=bool(set(RDMA) & names))
