"""Lab "nodes": Linux network namespaces joined by a bridge, with faults.

A :class:`Cluster` of N nodes is N namespaces ``<prefix>n<i>``, each with an
``eth0`` (a veth; another name per node if asked) plugged into a bridge that lives in its own switch
namespace ``<prefix>sw``. Nothing is attached to the host's namespace, so no
packet can leave the machine: nodes reach each other's ``10.213.0.x``
addresses and their own loopback, and nothing else (no default route).

Each node gets ``/etc/netns/<ns>/hosts`` (``ip netns exec`` bind-mounts every
file of ``/etc/netns/<ns>/`` over its namesake in ``/etc``), a ``resolv.conf``
that points at 127.0.0.1 and an ``nsswitch.conf`` with ``hosts: files``, so a
name lookup never reaches a real DNS server. Commands can run under a hostname of
their own with ``unshare --uts`` (see :meth:`Node.wrap`).

Faults: :meth:`Cluster.drop_port` (an iptables DROP rule, or nft when iptables
is absent), :meth:`Cluster.rate_limit` (``tc qdisc ... tbf``) and :meth:`Cluster.add_shadow_nic` (a second
NIC in the node's subnet, on a switch nobody else is on, whose route for the subnet wins).
Everything is removed by :meth:`Cluster.destroy` (also on error, when the
cluster is used as a context manager) and :func:`cleanup_stale`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

SUBNET = "10.213.0"
NETNS_ETC = Path("/etc/netns")
DEFAULT_PREFIX = "lab-"


def sh(*argv: str, check: bool = True, ns: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a short command (optionally inside namespace ``ns``), bounded to 20 s."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(argv)
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    if check and res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return res


def netns_unavailable_reason() -> str | None:
    """Why network namespaces cannot be made here, or None if they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (euid != 0)"
    for tool in ("ip", "unshare"):
        if shutil.which(tool) is None:
            return f"`{tool}` not found (install iproute2 / util-linux)"
    probe = f"{DEFAULT_PREFIX}probe-{uuid.uuid4().hex[:6]}"
    try:
        res = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=20)
        if res.returncode != 0:
            return f"`ip netns add` failed: {res.stderr.strip()}"
        veth = subprocess.run(["ip", "-n", probe, "link", "add", "p0", "type", "veth", "peer", "name", "p1"],
                              capture_output=True, text=True, timeout=20)
        if veth.returncode != 0:
            return f"cannot create veth pairs: {veth.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`ip netns add` failed: {exc}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=20)
    return None


def firewall_tool() -> str | None:
    """'iptables' or 'nft', whichever is installed (iptables preferred)."""
    for tool in ("iptables", "nft"):
        if shutil.which(tool):
            return tool
    return None


@dataclass
class Node:
    index: int
    ns: str
    hostname: str
    addr: str
    ifname: str = "eth0"

    def wrap(self, argv: list[str], hostname: str | None = None) -> list[str]:
        """argv that runs ``argv`` inside this node, under its own hostname."""
        name = hostname or self.hostname
        return ["ip", "netns", "exec", self.ns, "unshare", "--uts", "--",
                "sh", "-c", 'hostname "$0" && exec "$@"', name, *argv]


@dataclass
class Cluster:
    """N nodes on one bridge. Use as ``with Cluster(2) as c: ...``."""

    size: int
    prefix: str = field(default_factory=lambda: f"{DEFAULT_PREFIX}{uuid.uuid4().hex[:4]}-")
    hostname_to_loopback: bool = False
    ifnames: dict[int, str] = field(default_factory=dict)  # node index -> NIC name (default eth0)
    nodes: list[Node] = field(default_factory=list)

    @property
    def switch_ns(self) -> str:
        return f"{self.prefix}sw"

    def __enter__(self) -> "Cluster":
        try:
            self.create()
        except BaseException:
            self.destroy()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    def create(self) -> None:
        sw = self.switch_ns
        sh("ip", "netns", "add", sw)
        sh("ip", "-n", sw, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", sw, "link", "set", "br0", "up")
        self.nodes = [Node(i, f"{self.prefix}n{i}", f"node{i}", f"{SUBNET}.{i + 1}", self.ifnames.get(i, "eth0"))
                      for i in range(self.size)]
        for node in self.nodes:
            sh("ip", "netns", "add", node.ns)
            self._write_etc(node)
            # The veth is born inside the switch namespace: never in the host's.
            sh("ip", "-n", sw, "link", "add", f"p{node.index}", "type", "veth", "peer", "name", node.ifname,
               "netns", node.ns)
            sh("ip", "-n", sw, "link", "set", f"p{node.index}", "master", "br0", "up")
            sh("ip", "-n", node.ns, "addr", "add", f"{node.addr}/24", "dev", node.ifname)
            sh("ip", "-n", node.ns, "link", "set", node.ifname, "up")
            sh("ip", "-n", node.ns, "link", "set", "lo", "up")

    def _write_etc(self, node: Node) -> None:
        etc = NETNS_ETC / node.ns
        etc.mkdir(parents=True, exist_ok=True)
        lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback"]
        if self.hostname_to_loopback:
            # What Debian/Ubuntu installers write: the machine's own name on 127.0.1.1.
            lines.append(f"127.0.1.1\t{node.hostname}")
        for other in [n for n in self.nodes if n is not node or not self.hostname_to_loopback]:
            lines.append(f"{other.addr}\t{other.hostname}")
        (etc / "hosts").write_text("\n".join(lines) + "\n")
        (etc / "resolv.conf").write_text("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
        # Names come from the hosts file only: a lookup of an unknown name fails at once
        # with "Name or service not known", as an NXDOMAIN would.
        (etc / "nsswitch.conf").write_text("hosts: files\n")

    def destroy(self) -> None:
        """Delete every namespace and /etc/netns entry of this cluster (idempotent)."""
        cleanup_stale(self.prefix)
        self.nodes = []

    def drop_port(self, node: int, port: int, from_node: int | None = None) -> str:
        """DROP TCP to ``port`` on ``node`` (from ``from_node`` only, if given); returns the rule."""
        target = self.nodes[node]
        src = self.nodes[from_node].addr if from_node is not None else None
        tool = firewall_tool()
        if tool == "iptables":
            rule = ["iptables", "-A", "INPUT", "-p", "tcp", "--dport", str(port)]
            rule += (["-s", src] if src else []) + ["-j", "DROP"]
        elif tool == "nft":
            sh("nft", "add", "table", "inet", "lab", ns=target.ns)
            sh("nft", "add", "chain", "inet", "lab", "input",
               "{ type filter hook input priority 0 ; policy accept ; }", ns=target.ns)
            rule = ["nft", "add", "rule", "inet", "lab", "input"]
            rule += (["ip", "saddr", src] if src else []) + ["tcp", "dport", str(port), "drop"]
        else:
            raise RuntimeError("neither iptables nor nft is installed (apt-get install iptables)")
        sh(*rule, ns=target.ns)
        return f"ip netns exec {target.ns} " + " ".join(rule)

    def add_shadow_nic(self, node: int, ifname: str = "eth1") -> list[str]:
        """Give ``node`` a second NIC with an address in the cluster's subnet, plugged into a switch of its own
        (nothing answers there), and make its connected route the one the kernel uses: the route of the NIC that
        came up first wins, which is how two NICs in one subnet break a real node. Returns the commands."""
        target = self.nodes[node]
        dead = f"{self.prefix}dead"
        sh("ip", "netns", "add", dead)
        sh("ip", "-n", dead, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", dead, "link", "set", "br0", "up")
        sh("ip", "-n", dead, "link", "add", f"d{node}", "type", "veth", "peer", "name", ifname, "netns", target.ns)
        sh("ip", "-n", dead, "link", "set", f"d{node}", "master", "br0", "up")
        subnet, addr = f"{SUBNET}.0/24", f"{SUBNET}.{101 + node}"
        commands = [["ip", "addr", "add", f"{addr}/24", "dev", ifname], ["ip", "link", "set", ifname, "up"],
                    # eth0's connected route goes behind eth1's (metric 100): eth1 "came up first"
                    ["ip", "route", "del", subnet, "dev", target.ifname],
                    ["ip", "route", "add", subnet, "dev", target.ifname, "proto", "kernel", "scope", "link",
                     "src", target.addr, "metric", "100"]]
        for cmd in commands:
            sh(*cmd, ns=target.ns)
        return [f"ip netns exec {target.ns} " + " ".join(cmd) for cmd in commands]

    def rate_limit(self, node: int, rate: str = "1mbit", burst: str = "32kbit", latency: str = "400ms") -> str:
        """Shape ``node``'s egress on its NIC with a token bucket filter; returns the command."""
        cmd = ["tc", "qdisc", "replace", "dev", self.nodes[node].ifname, "root", "tbf",
               "rate", rate, "burst", burst, "latency", latency]
        sh(*cmd, ns=self.nodes[node].ns)
        return f"ip netns exec {self.nodes[node].ns} " + " ".join(cmd)


def cleanup_stale(prefix: str = DEFAULT_PREFIX) -> list[str]:
    """Delete namespaces (and /etc/netns dirs) whose name starts with ``prefix``."""
    res = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=20)
    removed: list[str] = []
    for line in res.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(prefix):
            # Kill what still runs inside (processes we started there), then delete.
            pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True, timeout=20)
            for pid in pids.stdout.split():
                try:
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)
            removed.append(name)
    if NETNS_ETC.is_dir():
        for d in NETNS_ETC.iterdir():
            if d.name.startswith(prefix):
                shutil.rmtree(d, ignore_errors=True)
    return removed
