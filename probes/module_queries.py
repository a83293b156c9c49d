"""Shell transcripts that ask about kernel modules: `lsmod | grep <pattern>` (what the pattern lists, and whether it
would have listed GPUDirect RDMA's peer-memory module, nvidia_peermem or nv_peer_mem) and `modinfo <module>` (the
module is installed on disk). A grep that lists nothing is an answer too: "not loaded".

Sample input:
    # lsmod | grep nv_peer
    #
    # modinfo nv_peer_mem
    filename:       /lib/modules/4.15.0-46-generic/updates/dkms/nv_peer_mem.ko
"""
from __future__ import annotations

import re

from doctor.facts.hardware import KernelModule, ModuleInstalled, ModuleQuery
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile
from probes.kernel_modules import NOTABLE

_LSMOD_GREP = lazy_compile(r"\blsmod\s*\|\s*grep\s+(?P<args>[^|;&]*[^|;&\s])")
_MODINFO = lazy_compile(r"(?:^|[\s$#>])modinfo\s+(?P<name>[\w-]+)\s*$")
_FILENAME = lazy_compile(r"^filename:\s+(?P<path>\S+?/(?P<base>[\w-]+)\.ko(?:\.\w+)?)\s*$")
_LISTED = lazy_compile(r"^(?P<name>\w+)\s+\d+\s+\d+(?:\s+\S+)?\s*$")
PEERMEM = ("nvidia_peermem", "nv_peer_mem")


def grep_pattern(args: str) -> re.Pattern[str] | None:
    """The pattern of `grep [options] PATTERN` as a Python regex (BRE's \\| is alternation), or None."""
    words = args.split()
    flags = re.IGNORECASE if any(w.startswith("-") and "i" in w[1:] and not w.startswith("--") for w in words) else 0
    extended = any(w.startswith("-") and ("E" in w or "P" in w) for w in words)
    plain = [w for w in words if not w.startswith("-")]
    if not plain:
        return None
    text = plain[0].strip("'\"")
    text = text if extended else text.replace(r"\|", "|")
    try:
        return re.compile(text, flags)
    except re.error:
        return re.compile(re.escape(text), flags)


class ModuleQueries(DocumentProbe):
    name = "module_queries"
    yields = ("kernel.module_query", "kernel.module_installed", "kernel.module")
    timeout_s = 5.0

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:400]
        return any(_LSMOD_GREP.search(x) or _MODINFO.search(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        lines = text.splitlines()
        queries: list[tuple[re.Pattern[str] | None, list[str]]] = []
        installed: list[tuple[int, str, str]] = []
        number = 0
        while number < len(lines):
            line = lines[number]
            m = _LSMOD_GREP.search(line)
            if m:
                pattern = grep_pattern(m["args"])
                names, number = self._query(ctx, lines, number, m["args"], pattern)
                queries.append((pattern, names))
                continue
            m = _MODINFO.search(line)
            if m:
                number = self._modinfo(lines, number, installed)
                continue
            number += 1
        for at, name, path in installed:
            ctx.emit(ModuleInstalled, at + 1, lines[at], node=ctx.node, rank=-1, name=name, path=path,
                     loaded=_loaded(name, queries))

    @staticmethod
    def _query(ctx: ParseContext, lines: list[str], at: int, args: str,
               pattern: re.Pattern[str] | None) -> tuple[list[str], int]:
        names: list[str] = []
        end = at + 1
        while end < len(lines) and (m := _LISTED.match(lines[end])):
            names.append(m["name"])
            if m["name"] in NOTABLE:
                ctx.emit(KernelModule, end + 1, lines[end], node=ctx.node, rank=-1, name=m["name"])
            end += 1
        covered = pattern is not None and any(pattern.search(p) for p in PEERMEM)
        ctx.emit(ModuleQuery, at + 1, lines[at], node=ctx.node, rank=-1, pattern=args.strip()[:80], peermem_covered=covered,
                 peermem_listed=any(n in PEERMEM for n in names), nvidia_listed="nvidia" in names, listed=len(names))
        return names, end

    @staticmethod
    def _modinfo(lines: list[str], at: int, installed: list[tuple[int, str, str]]) -> int:
        for end in range(at + 1, min(at + 4, len(lines))):
            m = _FILENAME.match(lines[end].strip())
            if m:
                installed.append((end, m["base"].replace("-", "_"), m["path"][:200]))
                return end + 1
        return at + 1


def _loaded(name: str, queries: list[tuple[re.Pattern[str] | None, list[str]]]) -> str:
    """yes when a listing shows the module, no when a grep that would have listed it shows nothing of it."""
    asked = [names for pattern, names in queries if pattern is not None and pattern.search(name)]
    if any(name in names for names in asked):
        return "yes"
    return "no" if asked else "unknown"
