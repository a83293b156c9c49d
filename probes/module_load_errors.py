"""A kernel module the kernel would not load, in modprobe's, insmod's and the kernel log's words.

Sample input (gpu-operator's driver container, then dmesg):
    modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument
    insmod: ERROR: could not insert module /lib/modules/5.15.0/extra/nv_peer_mem.ko: Unknown symbol in module
    [Tue Sep  8 17:16:02 2026] nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client
    [Tue Sep  8 17:16:02 2026] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)
    error loading module "nvidia_peermem": load nvidia_peermem failed: invalid argument
The kernel's lines come from its module loader (kernel/module: "disagrees about version of symbol", "Unknown symbol");
modprobe and insmod print "could not insert"; Talos's machined, which loads modules itself, prints 'error loading
module "<name>": <reason>' in `talosctl dmesg` (siderolabs/talos#12021). A module built against another kernel's or
another OFED's symbols is the usual reason (NVIDIA/gpu-operator#2868: a network-operator upgrade left nvidia_peermem
built for the old OFED).
"""
from __future__ import annotations

from doctor.facts.hardware import ModuleLoadFailed
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_INSERT = lazy_compile(r"\b(?:modprobe|insmod): ERROR: could not insert (?:module )?'?(?:\S*/)?(?P<name>[\w-]+?)(?:\.ko)?'?: "
                       r"(?P<reason>.+?)\s*$")
_KERNEL = lazy_compile(r"(?:^|\]\s*|\s)(?P<name>\w+): (?P<reason>disagrees about version of symbol \w+|Unknown symbol \w+"
                       r"(?: \(err -?\d+\))?)")
_TALOS = lazy_compile(r'\berror loading module "(?P<name>[\w-]+)": (?P<reason>.+?)\s*$')


class ModuleLoadErrors(LineProbe):
    name = "module_load_errors"
    yields = ("kernel.module_load_failed",)
    triggers = ("could not insert", "disagrees about version of symbol", "Unknown symbol ", "error loading module")

    def feed(self, line_no: int, line: str) -> None:
        m = _INSERT.search(line) or _KERNEL.search(line) or _TALOS.search(line)
        if m:
            self.ctx.emit(ModuleLoadFailed, line_no, line, name=m["name"].replace("-", "_"), reason=m["reason"][:200])
