"""The DeepSpeed launcher (deepspeed runner, pdsh/ssh multinode runner, per-node launch.py) in its own words.

Sample input:
    [2024-01-06 11:41:34,489] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.
    RuntimeError: Using hostfile at /job/hostfile but host=node2 was not reachable via ssh. If you are running with a single node please remove /job/hostfile or setup passwordless ssh.
    ValueError: Hostfile contains a bad entry: node2 lots=8, unable to proceed with launching
    [2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=0'] exits with return code = -9
    pdsh@node1: node2: ssh exited with exit code 255                                    (probes/remote_shell.py)
    [2022-12-15 21:00:19,543] [INFO] [runner.py:417:main] Using IP address of  for node node-0       (empty: `hostname -I` gave none)
"""
from __future__ import annotations


from doctor.facts.launch import LaunchConfigError
from doctor.facts.launchers import Hostfile, RemoteLaunchError, WorkerExit
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_NO_HOSTFILE = lazy_compile(r"Unable to find hostfile, will proceed with training with local resources only")
_HOSTFILE_AT = lazy_compile(r"Using hostfile at (?P<path>\S+) but host=(?P<host>[\w.\-]+) was not reachable via ssh")
_BAD_HOSTFILE = lazy_compile(r"(?P<msg>Hostfile (?:contains a bad entry|is empty or not formatted correctly|is not formatted correctly)"
                           r"[^\n]*)")
_EXIT = lazy_compile(r"sigkill_handler\].*exits with return code = (?P<code>-?\d+)")
# the multinode runner takes the master address from `hostname -I` on the first host; an empty one is printed as is
_EMPTY_MASTER = lazy_compile(r"Using IP address of\s+for node (?P<host>\S+)|deepspeed\.launcher\.launch .*--master_addr=(?:\s|$)")
_LOCAL_RANK = lazy_compile(r"--local_rank=(?P<rank>\d+)")
SIGNALS = {-9: "SIGKILL", -11: "SIGSEGV", -6: "SIGABRT", -7: "SIGBUS", -15: "SIGTERM", -2: "SIGINT"}


class DeepSpeed(LineProbe):
    name = "deepspeed"
    yields = ("launch.hostfile", "launch.remote_error", "launch.config_error", "launch.worker_exit")
    triggers = ("Unable to find hostfile", "was not reachable via ssh", "Hostfile ", "exits with return code",
                "Using IP address of", "--master_addr=")

    def feed(self, line_no: int, line: str) -> None:
        if _NO_HOSTFILE.search(line):
            self.ctx.emit(Hostfile, line_no, line, launcher="deepspeed", found=False)
        elif (m := _HOSTFILE_AT.search(line)):
            self.ctx.emit(RemoteLaunchError, line_no, line, launcher="deepspeed", host=m["host"], reason="ssh_check")
        elif (m := _BAD_HOSTFILE.search(line)):
            self.ctx.emit(LaunchConfigError, line_no, line, what=f"hostfile: {m['msg'].strip()[:160]}")
        elif (m := _EMPTY_MASTER.search(line)):
            where = f" for node {m['host']}" if m["host"] else ""
            self.ctx.emit(LaunchConfigError, line_no, line,
                          what=f"MASTER_ADDR empty: the DeepSpeed launcher found no IP address{where} (hostname -I)")
        elif (m := _EXIT.search(line)):
            code = int(m["code"])
            local = _LOCAL_RANK.search(line)
            self.ctx.emit(WorkerExit, line_no, line, rank=int(local["rank"]) if local else None, launcher="deepspeed",
                          code=code, signal=SIGNALS.get(code, ""))
