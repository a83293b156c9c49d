"""apt's /var/log/apt/history.log: which packages of the GPU stack and the kernel changed, when, and by which command.

An expert reading a node whose driver stopped answering looks here first: unattended-upgrades replacing the NVIDIA
userspace (libnvidia-*) under a running kernel module, or a new kernel that the nvidia module was not built for.

Sample input:
    Start-Date: 2021-04-24  06:50:54
    Commandline: /usr/bin/unattended-upgrade
    Upgrade: libnvidia-common-460:amd64 (460.56-0ubuntu0.20.04.1, 460.73.01-0ubuntu0.20.04.1), nvidia-utils-460:amd64 (...)
    End-Date: 2021-04-24  06:51:12
"""
from __future__ import annotations

from doctor.facts.env import PackageChange
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.regex import lazy_compile

_START = lazy_compile(r"^Start-Date:\s*(?P<date>.+?)\s*$")
_COMMAND = lazy_compile(r"^Commandline:\s*(?P<cmd>.+?)\s*$")
_ACTION = lazy_compile(r"^(?P<action>Upgrade|Install|Remove|Purge|Downgrade|Reinstall):\s*(?P<list>.+)$")
# one entry of the list: "name:arch (old, new)" for upgrades, "name:arch (new[, automatic])" for installs
_ENTRY = lazy_compile(r"(?P<name>[a-z0-9][a-z0-9+.\-]*)(?::[a-z0-9]+)? \((?P<versions>[^)]*)\)")
# what can break a running driver: its own packages, CUDA/NCCL, the kernel it is built for
WATCHED = lazy_compile(r"^(?:lib)?nvidia|^cuda|nccl|^linux-(?:image|modules|headers)|^dkms$")


class AptHistory(DocumentProbe):
    name = "apt_history"
    yields = ("pkg.change",)
    live = None

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:40]
        return any(_START.match(x) for x in lines) and any(_ACTION.match(x) or _COMMAND.match(x) for x in lines)

    def parse(self, text: str, ctx: ParseContext) -> None:
        date = command = ""
        for number, line in enumerate(text.splitlines(), start=1):
            if (m := _START.match(line)):
                date, command = m["date"], ""
            elif (m := _COMMAND.match(line)):
                command = m["cmd"]
            elif (m := _ACTION.match(line)):
                self._entries(number, line, m["action"].lower(), m["list"], date, command, ctx)

    @staticmethod
    def _entries(number: int, line: str, action: str, listed: str, date: str, command: str, ctx: ParseContext) -> None:
        for e in _ENTRY.finditer(listed):
            if not WATCHED.search(e["name"]):
                continue
            versions = [v.strip() for v in e["versions"].split(",") if v.strip() and v.strip() != "automatic"]
            old, new = (versions[0], versions[1]) if action in ("upgrade", "downgrade") and len(versions) > 1 else \
                ("", versions[0] if versions else "")
            if action in ("remove", "purge"):
                old, new = new, ""
            ctx.emit(PackageChange, number, line, node=ctx.node, rank=-1, name=e["name"], action=action, old=old, new=new,
                     command=command[:120], date=date)
