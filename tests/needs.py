"""What a test needs from the machine, checked before it starts: one table, one reason per missing thing.

Use `@pytest.mark.needs("netns", "firewall")`; tests/conftest.py skips the test with the reason of the first
requirement this machine lacks. `.ci/run` installs every tool below, so CI runs all of them.
"""
from __future__ import annotations

import os
import shutil
from functools import lru_cache
from typing import Callable


def _tool(name: str, package: str) -> Callable[[], str | None]:
    def check() -> str | None:
        return None if shutil.which(name) else f"`{name}` is not installed (apt-get install {package})"
    return check


def _root() -> str | None:
    return None if os.geteuid() == 0 else "needs root (euid != 0)"


def _netns() -> str | None:
    from lab.netns import netns_unavailable_reason
    reason = netns_unavailable_reason()
    return f"no network namespaces: {reason}" if reason else None


def _firewall() -> str | None:
    from lab.netns import firewall_tool
    return None if firewall_tool() else "neither iptables nor nft is installed (apt-get install iptables)"


REQUIREMENTS: dict[str, Callable[[], str | None]] = {
    "root": _root,
    "netns": _netns,                                  # root, ip, unshare, and a veth pair that really works
    "firewall": _firewall,                            # iptables or nft, for dropped ports
    "iptables": _tool("iptables", "iptables"),        # lab/tools.py drops ssh with iptables itself
    "ip": _tool("ip", "iproute2"),
    "tc": _tool("tc", "iproute2"),
    "tmux": _tool("tmux", "tmux"),
    "rsvg-convert": _tool("rsvg-convert", "librsvg2-bin"),
    "iperf3": _tool("iperf3", "iperf3"),
    "mpirun": _tool("mpirun", "openmpi-bin"),
    "mpicc": _tool("mpicc", "libopenmpi-dev"),
    "ompi_info": _tool("ompi_info", "openmpi-bin"),
    "ssh": _tool("ssh", "openssh-client"),
}


@lru_cache(maxsize=None)
def missing(name: str) -> str | None:
    """Why `name` is unavailable here, or None; each check runs once per session."""
    if name not in REQUIREMENTS:
        raise KeyError(f"unknown requirement {name!r}: add it to tests/needs.py REQUIREMENTS")
    return REQUIREMENTS[name]()
