"""Record real `doctor cluster` jobs across lab nodes (network namespaces) as offline job-facts files.

    python -m lab.cluster_record [--only NAME ...] [--out DIR]      # default DIR: fixtures/cluster/
    python -m lab.cluster_record --list

Every node runs `doctor cluster --save-facts` (torchrun, one rank per node, or plain RANK/WORLD_SIZE where torchrun's
own rendezvous would fail first), so rank 0 writes the facts of the whole job as it received them, and a rank that
cannot join writes its own: `doctor analyze <dir>/job-facts-rank0.json` diagnoses them again offline. Faults are real:
environment variables set on one node, a 64 MiB tmpfs on one node's /dev/shm (a private mount namespace), a
different nvidia-cuda-runtime-cu12 wheel on one node's path, iptables DROP of a port, tc token buckets. Each folder keeps node<i>.log (merged stdout+stderr) and command.txt (what ran where).

Needs: root, iproute2, util-linux, iptables, tc; torch (CPU); for config-skew-3node two nvidia-cuda-runtime-cu12
wheels (12.4.127 and 12.1.105) installed with `pip install --no-deps --target DIR` into LAB_CUDA_RT_A / LAB_CUDA_RT_B.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lab.netns import Cluster, Node, netns_unavailable_reason

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "fixtures" / "cluster"
PORT = 29500
DEADLINE_S = 70
QUICK = ("--bandwidth-seconds", "1", "--rendezvous-timeout", "20", "--timeout", "60")


@dataclass
class Scenario:
    name: str
    nodes: int
    what: str
    args: tuple[str, ...] = QUICK
    env: Callable[[int], dict[str, str]] = lambda i: {}
    prefix: Callable[[int], list[str]] = lambda i: []        # argv wrapped around doctor on node i
    fault: Callable[[Cluster], list[str]] = lambda c: []     # returns the commands it ran
    torchrun: bool = True
    ranks: int = 0                                           # world size when not torchrun (default: nodes)
    master: Callable[[Cluster, int], str] = lambda c, i: c.nodes[0].addr


def small_shm(i: int) -> list[str]:
    """Node 1's /dev/shm is a 64 MiB tmpfs, as Docker gives a container by default (private mount namespace)."""
    if i != 1:
        return []
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount -t tmpfs -o size=64m shm /dev/shm && exec "$@"', "sh"]


def config_env(i: int) -> dict[str, str]:
    site = os.environ.get("LAB_CUDA_RT_B" if i == 1 else "LAB_CUDA_RT_A", "")
    env = {"PYTHONPATH": f"{REPO}:{site}" if site else str(REPO)}
    if i == 1:
        env["NCCL_IB_HCA"] = "mlx5_0"
    if i == 2:
        env["NCCL_SOCKET_IFNAME"] = "eth0"
    return env


def slow_link(c: Cluster) -> list[str]:
    """Only node1 -> node2 traffic shaped: an htb root (sch_prio is not in every kernel), a 8 Mbit/s class for what
    a u32 filter on node2's address sends it, 10 Gbit/s for the rest."""
    ns, dst = c.nodes[1].ns, c.nodes[2].addr
    cmds = [["tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "10"],
            ["tc", "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:10", "htb", "rate", "10gbit"],
            ["tc", "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:30", "htb", "rate", "8mbit", "ceil", "8mbit",
             "burst", "32kbit"],
            ["tc", "filter", "add", "dev", "eth0", "protocol", "ip", "parent", "1:0", "prio", "1", "u32",
             "match", "ip", "dst", f"{dst}/32", "flowid", "1:30"]]
    for cmd in cmds:
        subprocess.run(["ip", "netns", "exec", ns, *cmd], check=True, capture_output=True, timeout=10)
    return [f"ip netns exec {ns} " + shlex.join(cmd) for cmd in cmds]


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("config-skew-3node", 3,
             "node1: NCCL_IB_HCA=mlx5_0, nvidia-cuda-runtime-cu12 12.1.105 (the others 12.4.127), a 64 MiB /dev/shm; "
             "node2: NCCL_SOCKET_IFNAME=eth0 and MASTER_ADDR=node0 by name (the others by address); "
             "--expected-busbw 50 GB/s for a gloo job over veth",
             args=QUICK + ("--pair-seconds", "0", "--expected-busbw", "50"), env=config_env, prefix=small_shm,
             master=lambda c, i: c.nodes[0].hostname if i == 2 else c.nodes[0].addr),
    Scenario("store-port-dropped-2node", 2,
             "node0 drops TCP to the store port 29500 from node1 (iptables); RANK/WORLD_SIZE launch, no torchrun agent",
             args=("--rendezvous-timeout", "8", "--timeout", "40", "--bandwidth-seconds", "0", "--pair-seconds", "0"),
             fault=lambda c: [c.drop_port(0, PORT, from_node=1)], torchrun=False),
    Scenario("rank-never-joins-2node", 1,
             "WORLD_SIZE=2 but only rank 0 (node0) is started",
             args=("--rendezvous-timeout", "8", "--timeout", "40"), torchrun=False, ranks=2),
    Scenario("pair-port-dropped-3node", 3,
             "node2 drops TCP to the reachability port 29511 from node1 (iptables)",
             args=QUICK + ("--probe-port", "29511"), fault=lambda c: [c.drop_port(2, 29511, from_node=1)]),
    Scenario("slow-node-3node", 3, "node2's egress shaped to 8 Mbit/s (tc tbf)",
             args=QUICK + ("--pair-bytes", "262144"),
             fault=lambda c: [c.rate_limit(2, rate="8mbit", burst="32kbit", latency="400ms")]),
    Scenario("slow-link-3node", 3, "only node1 -> node2 traffic shaped to 8 Mbit/s (tc htb class + u32 filter)",
             args=QUICK + ("--pair-bytes", "262144"), fault=slow_link),
)


def base_env(extra: dict[str, str]) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "PYTHONPATH": str(REPO),
           "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "DOCTOR_CACHE_DIR": "off"}
    return env | extra


def argv_for(s: Scenario, c: Cluster, node: Node, out: Path) -> tuple[list[str], dict[str, str]]:
    doctor = ["-m", "doctor", "cluster", *s.args, "--save-facts", str(out / "job-facts-rank{rank}.json"),
              "--json", "--output", str(out.parent / f".{out.name}-report-{{rank}}.json")]
    env = s.env(node.index)
    if s.torchrun:
        argv = [sys.executable, "-m", "torch.distributed.run", "--nnodes", str(s.nodes), "--nproc_per_node", "1",
                "--node_rank", str(node.index), "--master_addr", s.master(c, node.index), "--master_port", str(PORT),
                *doctor]
    else:
        argv = [sys.executable, *doctor]
        env = env | {"RANK": str(node.index), "WORLD_SIZE": str(s.ranks or s.nodes), "LOCAL_RANK": "0",
                     "MASTER_ADDR": s.master(c, node.index), "MASTER_PORT": str(PORT)}
    return s.prefix(node.index) + argv, env


def record(s: Scenario, out_root: Path) -> Path:
    out = out_root / s.name
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*"):
        old.unlink()
    commands = [f"# {s.name}: {s.what}"]
    with Cluster(s.nodes) as c:
        commands += [f"# fault: {cmd}" for cmd in s.fault(c)]
        procs = []
        for node in c.nodes:
            argv, env = argv_for(s, c, node, out)
            commands.append(f"# node{node.index} ({node.addr}, hostname {node.hostname})\n"
                            + " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()) if k != "PYTHONPATH")
                            + " " + shlex.join(argv).replace(f"{REPO}/", "").replace(sys.executable, "python"))
            log = open(out / f"node{node.index}.log", "wb")
            procs.append((log, subprocess.Popen(["timeout", "-k", "3", str(DEADLINE_S)] + node.wrap(argv),
                                                env=base_env(env), cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL)))
        for log, proc in procs:
            try:
                proc.wait(timeout=DEADLINE_S + 10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
    (out / "command.txt").write_text("\n".join(commands) + "\n")
    for report in out_root.glob(f".{s.name}-report-*.json"):
        report.unlink()
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.cluster_record")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    if args.list:
        for s in SCENARIOS:
            print(f"{s.name:28} {s.what}")
        return 0
    reason = netns_unavailable_reason()
    if reason:
        print(f"lab.cluster_record: {reason}", file=sys.stderr)
        return 2
    for s in SCENARIOS:
        if args.only and s.name not in args.only:
            continue
        started = time.monotonic()
        out = record(s, Path(args.out))
        files = sorted(p.name for p in out.glob("job-facts-*.json"))
        print(f"{s.name}: {time.monotonic() - started:.0f}s, {files}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
