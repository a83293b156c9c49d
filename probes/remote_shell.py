"""ssh and pdsh as launchers use them (mpirun, horovodrun, DeepSpeed's pdsh runner): a host they cannot reach
is a connect error like any other (transport ssh); a host that refuses the key is a launch error.

Sample input:
    ssh: connect to host node1 port 22: Connection refused
    node2: ssh: connect to host node2 port 22: Connection timed out          (pdsh prefixes the host)
    ssh: Could not resolve hostname node9: Name or service not known
    ssh: Could not resolve hostname localhost:4: Temporary failure in name resolution   (host:slots given to ssh)
    worker-1: root@worker-1: Permission denied (publickey,password).
    Host key verification failed.
    pdsh@node1: node2: ssh exited with exit code 255
    bash: line 1: orted: command not found
    [1,0]<stderr>:... / [0]<stderr>:...                                      (mpirun --tag-output, horovodrun)
"""
from __future__ import annotations


from doctor.facts.launch import ConnectError, ResolveError
from doctor.facts.launchers import RemoteLaunchError
from doctor.probing.contract import LineProbe
from doctor.probing.lines import address_class
from doctor.probing.regex import lazy_compile

_CONNECT = lazy_compile(r"ssh: connect to host (?P<host>\S+) port (?P<port>\d+): (?P<err>.+?)\s*$")
# "ssh: Could not resolve hostname localhost:4: ..." is no name missing from DNS: a launcher's host:slots (horovodrun -H
# localhost:4) reached ssh whole, because the mpirun in use does not parse that syntax (an Open MPI before 1.x/2.x, the
# maintainers on horovod#1691; athena#139 upgraded Open MPI)
_RESOLVE = lazy_compile(r"ssh: Could not resolve hostname (?P<host>[^:\s]+)(?P<slots>:\d+)?:")
_DENIED = lazy_compile(r"(?:(?<![\w.\-])(?P<who>[\w.\-]+@[\w.\-]+): )?Permission denied \((?P<methods>[\w,\-]+)\)")
_PDSH = lazy_compile(r"pdsh@(?P<launcher_host>[\w.\-]+): (?P<host>[\w.\-]+): ssh exited with exit code (?P<code>\d+)")
# a shell's own wording ("bash: line 1: orted: command not found"), or an MPI daemon's name alone at the start of the
# line as an indented paste or tcsh prints it ("  orted: command not found", "orted: Command not found.": users list
# 2008/04/5431, held-out batch NS)
_NOT_FOUND = lazy_compile(r"(?:(?:bash|sh|zsh)(?:: line \d+)?: |^\s*(?=(?:orted|prted):))"
                          r"(?P<cmd>orted|prted|python3?|deepspeed|horovodrun|torchrun): (?:[Cc]ommand )?not found")
_PREFIX = lazy_compile(r"^\s*(?P<host>[A-Za-z0-9][\w.\-]*): ")
_OUTCOMES = (("refused", "refused"), ("timed out", "timeout"), ("no route", "unreachable"),
             ("network is unreachable", "unreachable"), ("reset", "reset"))


def outcome_of(text: str) -> str:
    low = text.lower()
    return next((name for words, name in _OUTCOMES if words in low), "other")


class RemoteShell(LineProbe):
    name = "remote_shell"
    yields = ("net.connect_error", "net.resolve_error", "launch.remote_error")
    triggers = ("ssh: connect to host", "ssh: Could not resolve hostname", "Permission denied (", "Host key verification failed",
                "ssh exited with exit code", "command not found", "Command not found", ": not found")

    def feed(self, line_no: int, line: str) -> None:
        if (m := _CONNECT.search(line)):
            host = m["host"]
            loopback, link_local = address_class(host)
            self.ctx.emit(ConnectError, line_no, line, host=host, port=int(m["port"]), outcome=outcome_of(m["err"]),
                          transport="ssh", loopback=loopback, link_local=link_local)
        elif (m := _RESOLVE.search(line)) and m["slots"]:
            self.ctx.emit(RemoteLaunchError, line_no, line, launcher="ssh", host=m["host"] + m["slots"], reason="host_slots")
        elif m:
            self.ctx.emit(ResolveError, line_no, line, host=m["host"], port=22)
        elif (m := _DENIED.search(line)):
            host = (m["who"] or "").split("@")[-1] or self._prefix_host(line)
            self.ctx.emit(RemoteLaunchError, line_no, line, launcher="ssh", host=host, reason="auth")
        elif "Host key verification failed" in line:
            self.ctx.emit(RemoteLaunchError, line_no, line, launcher="ssh", host=self._prefix_host(line), reason="host_key")
        elif (m := _PDSH.search(line)):
            self.ctx.emit(RemoteLaunchError, line_no, line, launcher="pdsh", host=m["host"], reason=f"exit_{m['code']}")
        elif (m := _NOT_FOUND.search(line)) and (m["cmd"] in ("orted", "prted") or self._prefix_host(line)):
            # an MPI daemon is only ever started remotely; python & co. count when a pdsh-style host prefix says so
            self.ctx.emit(RemoteLaunchError, line_no, line, launcher="ssh", host=self._prefix_host(line), reason="not_found")

    @staticmethod
    def _prefix_host(line: str) -> str:
        m = _PREFIX.match(line)
        return m["host"] if m and not m["host"].endswith(("Error", "Exception", "bash", "ssh")) else ""
