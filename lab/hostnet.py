"""Host-network faults recorded in network namespaces: two interfaces in one subnet, MTU that differs across nodes.

    python -m lab.hostnet OUT_DIR

route-conflict/   node rc-a has eth1 (10.77.0.11/24, a dead-end link, configured first) and eth0 (10.77.0.1/24, the
                  link to rc-b). Both carry 10.77.0.0/24; the kernel sends to 10.77.0.2 out of eth1 and a torch
                  TCPStore client times out. Recorded: `uname -a; ip addr; ip route` and the client's output.
route-ok/         the same without eth1: the client connects.
mtu/              nodes mt-a (mtu 9000) and mt-b (mtu 1500) on one link: `uname -a; ip addr` on each.
shell-hostname-on-loopback.txt   an interactive bash on node trainer-0 whose /etc/hosts binds its name to 127.0.1.1
init-env-rank-missing.txt        init_process_group('gloo') with env:// and no RANK in the environment
Every namespace is removed at the end. Needs root, iproute2, unshare.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
CLIENT = ("import datetime, torch.distributed as d; "
          "d.TCPStore('10.77.0.2', 29500, 2, False, timeout=datetime.timedelta(seconds=8)); print('store connected')")
SERVER = ("import datetime, time, torch.distributed as d; "
          "s = d.TCPStore('0.0.0.0', 29500, 2, True, timeout=datetime.timedelta(seconds=30), wait_for_workers=False); time.sleep(25)")


def sh(cmd: str) -> str:
    return subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=60).stdout


def on(ns: str, host: str, cmd: str) -> str:
    """Run cmd in namespace ns under its own hostname; stdout and stderr together."""
    res = subprocess.run(["ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", f"hostname {host}; {cmd}"],
                         capture_output=True, text=True, timeout=90)
    return res.stdout + res.stderr


def route_case(out: Path, conflict: bool) -> None:
    for ns in ("rc-a", "rc-b", "rc-x"):
        sh(f"ip netns add {ns}")
    if conflict:
        sh("ip link add eth1 netns rc-a type veth peer name dead0 netns rc-x")
        sh("ip -n rc-a addr add 10.77.0.11/24 dev eth1; ip -n rc-a link set eth1 up; ip -n rc-x link set dead0 up")
    sh("ip link add eth0 netns rc-a type veth peer name eth0 netns rc-b")
    sh("ip -n rc-a addr add 10.77.0.1/24 dev eth0; ip -n rc-a link set eth0 up; ip -n rc-a link set lo up")
    sh("ip -n rc-b addr add 10.77.0.2/24 dev eth0; ip -n rc-b link set eth0 up; ip -n rc-b link set lo up")
    server = subprocess.Popen(["ip", "netns", "exec", "rc-b", PY, "-c", SERVER], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    time.sleep(6)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ip-addr-route.txt").write_text(on("rc-a", "gpu-node-a", "uname -a; ip addr; ip route"))
    (out / "store-client.log").write_text(on("rc-a", "gpu-node-a", f"{PY} -c \"{CLIENT}\""))
    server.kill()
    server.wait()
    for ns in ("rc-a", "rc-b", "rc-x"):
        sh(f"ip netns del {ns}")


def mtu_case(out: Path) -> None:
    sh("ip netns add mt-a; ip netns add mt-b")
    sh("ip link add eth0 netns mt-a type veth peer name eth0 netns mt-b")
    sh("ip -n mt-a link set eth0 mtu 9000; ip -n mt-b link set eth0 mtu 1500")
    sh("ip -n mt-a addr add 10.78.0.1/24 dev eth0; ip -n mt-a link set eth0 up")
    sh("ip -n mt-b addr add 10.78.0.2/24 dev eth0; ip -n mt-b link set eth0 up")
    out.mkdir(parents=True, exist_ok=True)
    (out / "node-a-ip-addr.txt").write_text(on("mt-a", "gpu-node-a", "uname -a; ip addr"))
    (out / "node-b-ip-addr.txt").write_text(on("mt-b", "gpu-node-b", "uname -a; ip addr"))
    sh("ip netns del mt-a; ip netns del mt-b")


def hosts_loopback(out: Path) -> None:
    etc = Path("/etc/netns/hn-a")
    sh("ip netns add hn-a")
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\ttrainer-0\n10.213.0.10\ttrainer-0-data\n")
    typed = "hostname\\ncat /etc/hosts\\ngetent hosts trainer-0\\nexit\\n"
    (out / "shell-hostname-on-loopback.txt").write_text(
        on("hn-a", "trainer-0", f'printf "{typed}" | env -i PS1="\\u@\\h:\\w# " HOME=/root TERM=dumb bash --norc -i 2>&1'))
    sh("ip netns del hn-a")
    (etc / "hosts").unlink()
    etc.rmdir()


def env_rank_missing(out: Path) -> None:
    res = subprocess.run(["env", "-u", "RANK", "-u", "WORLD_SIZE", "-u", "MASTER_ADDR", "-u", "MASTER_PORT", PY, "-c",
                          "import torch.distributed as dist; dist.init_process_group('gloo')"],
                         capture_output=True, text=True, timeout=60)
    (out / "init-env-rank-missing.txt").write_text(res.stdout + res.stderr)


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "/tmp/hostnet")
    route_case(out / "route-conflict", conflict=True)
    route_case(out / "route-ok", conflict=False)
    mtu_case(out / "mtu")
    hosts_loopback(out)
    env_rank_missing(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
