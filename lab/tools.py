"""Record real iperf3 and Open MPI runs across lab nodes as incident fixtures.

    python -m lab.tools                      # every tool scenario -> fixtures/incidents/<name>/
    python -m lab.tools --only NAME ... [--out DIR]
    python -m lab.tools --list

Two network namespaces (lab/netns.py) play two nodes. iperf3 runs between them with the link shaped by
`tc ... tbf`; Open MPI's mpirun starts ranks on both, its daemons carried into node1's namespace by
lab/netns_rsh.sh (or by real ssh, for the scenarios about ssh). Faults are real: a rate limit, a wrong
btl_tcp_if_include or UCX_NET_DEVICES, nothing listening on port 22, an iptables DROP, CUDA support asked of
Debian's Open MPI, which is built without it. Every process runs under `timeout`.

Needs: root, iproute2, util-linux; iperf3 (apt-get install iperf3); openmpi-bin and libopenmpi-dev (mpirun,
mpicc); openssh-client and iptables for the ssh scenarios. Missing tools skip a scenario with the reason.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from lab.netns import Cluster, netns_unavailable_reason

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "fixtures" / "incidents"
RSH = REPO / "lab" / "netns_rsh.sh"
MPIRUN = ["mpirun", "--allow-run-as-root", "--hostfile", "{hosts}", "-np", "2"]
SSH_ARGS = "-o ConnectTimeout=3 -o BatchMode=yes -o StrictHostKeyChecking=no"


@dataclass
class Tool:
    name: str
    cause: str
    symptom: str
    description: str
    needs: tuple[str, ...]
    run: Callable[["Run"], None]
    rate: str = ""                            # tc tbf rate on node1's egress
    expectations: str = ""                    # expectations.yaml written into the incident
    drop_ssh: bool = False


@dataclass
class Run:
    tool: Tool
    cluster: Cluster
    out: Path
    work: Path
    commands: list[str] = field(default_factory=list)

    def sh(self, node: int, argv: list[str], log: str, deadline: int = 20, env: dict[str, str] | None = None,
           background: bool = False) -> subprocess.Popen[str] | None:
        """Run argv on a node under timeout, appending merged output to <out>/<log>."""
        full = ["timeout", str(deadline), *argv]
        shown = shlex.join(argv).replace(f"{self.work}/", "").replace(f"{REPO}/", "")
        self.commands.append(f"# {log} (node{node}, {self.cluster.nodes[node].addr})\n{shown}")
        handle = open(self.out / log, "a", encoding="utf-8")
        proc = subprocess.Popen(self.cluster.nodes[node].wrap(full), stdout=handle, stderr=subprocess.STDOUT,
                                text=True, env=dict(os.environ, **(env or {})))
        if background:
            return proc
        proc.wait(timeout=deadline + 10)
        return None


def iperf3(run: Run, json_out: bool = False) -> None:
    server = run.sh(0, ["iperf3", "-s", "-1", "-B", run.cluster.nodes[0].addr], "node0-iperf3-server.txt",
                    background=True)
    time.sleep(0.5)
    client = ["iperf3", "-c", run.cluster.nodes[0].addr, "-t", "3"] + (["--json"] if json_out else [])
    run.sh(1, client, "node1-iperf3-client.json" if json_out else "node1-iperf3-client.txt")
    if server:
        server.wait(timeout=30)


def mpirun(run: Run, *extra: str, deadline: int = 20, ssh: bool = False) -> None:
    hosts = run.work / "hosts"
    hosts.write_text("node0 slots=1\nnode1 slots=1\n")
    nsmap = run.work / "nsmap"
    nsmap.write_text("".join(f"{n.ns} {n.hostname}\n" for n in run.cluster.nodes))
    agent = ["--mca", "plm_rsh_args", SSH_ARGS] if ssh else ["--mca", "plm_rsh_agent", str(RSH)]
    argv = [a.replace("{hosts}", str(hosts)) for a in MPIRUN] + agent + list(extra) + [str(run.work / "allreduce")]
    run.sh(0, argv, "node0.log", deadline=deadline, env={"LAB_NS_MAP": str(nsmap)})


def ompi_info_cuda(run: Run) -> None:
    res = subprocess.run(["ompi_info", "--parsable", "--all"], capture_output=True, text=True, timeout=60)
    lines = [ln for ln in res.stdout.splitlines() if "cuda" in ln.lower()]
    (run.out / "ompi_info-cuda.txt").write_text("$ ompi_info --parsable --all | grep -i cuda\n" + "\n".join(lines) + "\n")
    mpirun(run, "--mca", "opal_cuda_support", "1")


TOOLS: tuple[Tool, ...] = (
    Tool("iperf3-slow-link-netns", "slow_network_link", "slow_multinode",
         "node1's link shaped to 1 Gbit/s (tc tbf) while the cluster expects 10 Gbit/s between nodes; "
         "iperf3 node1 -> node0, text output", ("iperf3",), iperf3, rate="1gbit",
         expectations="# doctor expectations: the node-to-node links are 10 GbE\nlink_gbps: 10\n"),
    Tool("iperf3-json-slow-link-netns", "slow_network_link", "slow_multinode",
         "the same 1 Gbit/s link against 10 Gbit/s, iperf3 --json on the client", ("iperf3",),
         lambda r: iperf3(r, json_out=True), rate="1gbit",
         expectations="expect:\n  link_gbps: 10 Gbit/s\n"),
    Tool("iperf3-healthy-netns", "healthy", "none",
         "a 1 Gbit/s link (tc tbf) measured against an expectation of 1 Gbit/s", ("iperf3",), iperf3,
         rate="1gbit", expectations="link_gbps: 1\n"),
    Tool("iperf3-link-below-expectation-netns", "slow_network_link", "slow_multinode",
         "node1's link shaped to 750 Mbit/s (tc tbf) on a 1 GbE cluster: iperf3 node1 -> node0 reaches about half to "
         "two thirds of the expected 1 Gbit/s, a degraded link rather than a wrong one", ("iperf3",), iperf3,
         rate="750mbit", expectations="# doctor expectations: the node-to-node links are 1 GbE\nlink_gbps: 1\n"),
    Tool("mpirun-healthy-netns", "healthy", "none",
         "mpirun starts one rank on each of two nodes (TCP BTL); one MPI_Allreduce", ("mpirun", "mpicc"),
         lambda r: mpirun(r)),
    Tool("mpirun-btl-if-include-missing-netns", "wrong_socket_ifname", "init_timeout",
         "--mca btl_tcp_if_include eth9: no node has eth9, so the TCP BTL has no interface", ("mpirun", "mpicc"),
         lambda r: mpirun(r, "--mca", "btl_tcp_if_include", "eth9")),
    Tool("mpirun-btl-if-include-lo-netns", "wrong_socket_ifname", "hang",
         "--mca btl_tcp_if_include lo on two nodes: each rank advertises 127.0.0.1 and reaches only itself",
         ("mpirun", "mpicc"), lambda r: mpirun(r, "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo",
                                                deadline=10)),
    Tool("mpirun-ucx-net-devices-netns", "wrong_socket_ifname", "crash",
         "--mca pml ucx with UCX_NET_DEVICES=eth9, a device no node has", ("mpirun", "mpicc"),
         lambda r: mpirun(r, "--mca", "pml", "ucx", "-x", "UCX_NET_DEVICES=eth9", "-x", "UCX_TLS=tcp")),
    Tool("mpirun-ssh-refused-netns", "port_blocked", "init_timeout",
         "mpirun starts its daemon on node1 over real ssh; nothing listens on node1:22", ("mpirun", "mpicc", "ssh"),
         lambda r: mpirun(r, ssh=True)),
    Tool("mpirun-ssh-timeout-netns", "port_blocked", "init_timeout",
         "the same over ssh, with node1 dropping port 22 (iptables): the connection times out",
         ("mpirun", "mpicc", "ssh", "iptables"), lambda r: mpirun(r, ssh=True), drop_ssh=True),
    Tool("mpirun-not-cuda-aware-netns", "gdr_disabled", "crash",
         "--mca opal_cuda_support 1 asked of Debian's Open MPI 4.1, built without CUDA; ompi_info says so",
         ("mpirun", "mpicc", "ompi_info"), ompi_info_cuda),
)


def by_name() -> dict[str, Tool]:
    return {t.name: t for t in TOOLS}


def missing_tools(tool: Tool) -> list[str]:
    return [t for t in tool.needs if shutil.which(t) is None]


def record(tool: Tool, out_dir: Path) -> Path:
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="lab-tools-") as tmp, Cluster(2) as cluster:
        work = Path(tmp)
        run = Run(tool, cluster, out_dir, work)
        if "mpicc" in tool.needs:
            subprocess.run(["mpicc", "-O2", "-o", str(work / "allreduce"), str(REPO / "lab" / "mpi_allreduce.c")],
                           check=True, capture_output=True, timeout=120)
            os.chmod(work, 0o755)
        if tool.rate:
            run.commands.append(cluster.rate_limit(1, rate=tool.rate, burst="256kbit", latency="50ms"))
        if tool.drop_ssh:
            run.commands.append(cluster.drop_port(1, 22))
        tool.run(run)
    if tool.expectations:
        (out_dir / "expectations.yaml").write_text(tool.expectations)
    (out_dir / "command.txt").write_text("\n".join(run.commands) + "\n")
    answer = {"cause": tool.cause, "symptom": tool.symptom, "also_acceptable": [], "description": tool.description,
              "produced_by": f"python -m lab.tools --only {tool.name}"}
    out_dir.with_name(out_dir.name + ".expected.yaml").write_text(yaml.safe_dump(answer, sort_keys=False, width=110))
    return out_dir


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lab.tools", description="Record iperf3 / Open MPI lab runs.")
    p.add_argument("--only", nargs="+", metavar="NAME")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--list", action="store_true")
    args = p.parse_args(argv)
    if args.list:
        for t in TOOLS:
            print(f"{t.name:<38} {t.cause:<19} {t.description}")
        return 0
    table = by_name()
    if unknown := [n for n in args.only or [] if n not in table]:
        print(f"unknown tool scenario(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    reason = netns_unavailable_reason()
    failed = 0
    for tool in [table[n] for n in args.only] if args.only else TOOLS:
        why = reason or (f"missing {', '.join(missing_tools(tool))}" if missing_tools(tool) else None)
        if why:
            print(f"skip {tool.name}: {why}")
            failed += bool(args.only)
            continue
        start = time.monotonic()
        record(tool, args.out / tool.name)
        print(f"ok   {tool.name} ({time.monotonic() - start:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
