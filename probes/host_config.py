"""Host identity and name resolution from shell transcripts and /etc/hosts files.

Sample input:
    root@worker-0:/app# hostname
    worker-0
    root@worker-0:/app# echo $MASTER_HOST
    worker-0.svc.cluster.local
    root@worker-0:/app# cat /etc/hosts
    127.0.0.1	localhost
    127.0.1.1	worker-0
"""
from __future__ import annotations


from doctor.facts.env import EnvVar
from doctor.facts.launch import HostName, HostsEntry
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.lines import address_class
from doctor.probing.regex import lazy_compile

_PROMPT = lazy_compile(r"^(?:\(\S+\)\s*)?(?:[\w.\-]+@(?P<host>[\w.\-]+):[^#$]*[#$]|\$|#)\s(?P<cmd>.*)$")
_HOSTS_LINE = lazy_compile(r"^\s*(?P<addr>\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F]*:[0-9a-fA-F:.]*)\s+"   # an IPv4 or IPv6 address
                         r"(?P<names>[\w.\-]+(?:\s+[\w.\-]+)*)\s*(?:#.*)?$")
_ECHO_VAR = lazy_compile(r"^echo\s+\"?\$\{?(?P<var>\w+)\}?\"?\s*$")


class HostConfig(DocumentProbe):
    name = "host_config"
    yields = ("host.name", "host.hosts_entry", "env.var")

    @classmethod
    def sniff(cls, head: str) -> bool:
        lines = head.splitlines()[:200]
        prompts = sum(1 for line in lines if _PROMPT.match(line) and "@" in line)
        hosts = sum(1 for line in lines if _HOSTS_LINE.match(line))
        return prompts >= 1 or (hosts >= 2 and hosts >= len([x for x in lines if x.strip() and not x.startswith("#")]) // 2)

    def parse(self, text: str, ctx: ParseContext) -> None:
        lines = text.splitlines()
        command, cmd_line = "", 0
        for number, line in enumerate(lines, start=1):
            m = _PROMPT.match(line)
            if m and ("@" in line or line.startswith("$")):
                command, cmd_line = m["cmd"].strip(), number
                continue
            self._output(ctx, command, number, line)

    def _output(self, ctx: ParseContext, command: str, number: int, line: str) -> None:
        if not line.strip():
            return
        if command == "hostname" or command.startswith("hostname "):
            ctx.emit(HostName, number, line, name=line.strip())
            return
        m = _ECHO_VAR.match(command)
        if m:
            ctx.emit(EnvVar, number, line, name=m["var"], value=line.strip(), source="shell")
            return
        if command in ("", "cat /etc/hosts") or command.endswith("/etc/hosts"):
            m = _HOSTS_LINE.match(line)
            if m and not line.lstrip().startswith("#"):
                loopback, _ = address_class(m["addr"])
                for name in m["names"].split():
                    ctx.emit(HostsEntry, number, line, name=name, address=m["addr"], loopback=loopback)
