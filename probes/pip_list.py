"""`pip list` tables (also `pip list` inside collect_env bundles): one package version per row.

Sample input:
    Package                  Version
    ------------------------ -----------
    nvidia-nccl-cu12         2.25.1
    torch                    2.7.0+cu128
The `name==version` pins of pip freeze and collect_env are the versions probe's; this one reads the table form, whose
rows carry no marker a line probe could trigger on, so it recognises the whole document by its header.
"""
from __future__ import annotations

from doctor.facts.env import PackageVersion
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.lines import version_num
from doctor.probing.regex import lazy_compile
from probes.versions import normalise

_HEADER = lazy_compile(r"^Package\s+Version(?:\s+Editable project location)?\s*$")
_RULE = lazy_compile(r"^-{3,}(?:\s+-{3,})+\s*$")
_ROW = lazy_compile(r"^(?P<name>[A-Za-z0-9][\w.\-]*)\s+(?P<v>\d[\w.+!\-]*)(?:\s+\S.*)?$")


class PipList(DocumentProbe):
    name = "pip_list"
    yields = ("pkg.version",)
    live = None

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:200]
        return any(_HEADER.match(a) and _RULE.match(b) for a, b in zip(lines, lines[1:]))

    def parse(self, text: str, ctx: ParseContext) -> None:
        in_table = False
        previous = ""
        for number, line in enumerate(text.splitlines(), start=1):
            if _RULE.match(line) and _HEADER.match(previous):
                in_table = True
            elif in_table:
                m = _ROW.match(line)
                if not m:
                    in_table = False
                else:
                    ctx.emit(PackageVersion, number, line, name=normalise(m["name"]), version=m["v"],
                             version_num=version_num(m["v"]))
            previous = line
