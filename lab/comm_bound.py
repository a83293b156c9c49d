"""A real gloo job whose steps are mostly communication: two lab nodes, node1's link shaped to 100 Mbit/s (tc tbf),
16 MiB all_reduced per step against 50 ms of compute (lab.worker's step lines: step_time, compute, comm).

    python -m lab.comm_bound OUT_DIR          # OUT_DIR/rank0.log, OUT_DIR/rank1.log, OUT_DIR/command.txt

Needs root, iproute2, util-linux, tc; torch (CPU). Every process runs under `timeout`; the namespaces are removed.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from lab.netns import Cluster

REPO = Path(__file__).resolve().parent.parent
WORKER = ["-m", "lab.worker", "--steps", "5", "--numel", str(4 * 2**20), "--step-sleep", "0.05", "--timeout", "60"]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m lab.comm_bound OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    with Cluster(2) as c:
        shaped = c.rate_limit(1, rate="100mbit", burst="256kbit", latency="400ms")
        commands = [f"# fault: {shaped}"]
        procs = []
        for node in c.nodes:
            env = {"RANK": str(node.index), "WORLD_SIZE": "2", "MASTER_ADDR": c.nodes[0].addr, "MASTER_PORT": "29500"}
            argv_n = [sys.executable, *WORKER]
            commands.append(f"# node{node.index} ({node.addr})\n" + " ".join(f"{k}={v}" for k, v in env.items()) + " "
                            + shlex.join(argv_n).replace(sys.executable, "python"))
            log = open(out / f"rank{node.index}.log", "wb")
            full_env = dict(PATH=os.environ.get("PATH", "/usr/bin:/bin"), PYTHONPATH=str(REPO), HOME="/root",
                            PYTHONUNBUFFERED="1", **env)
            procs.append((log, subprocess.Popen(["timeout", "-k", "3", "90"] + node.wrap(argv_n), env=full_env, cwd=REPO,
                                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)))
        for log, proc in procs:
            proc.wait(timeout=100)
            log.close()
    (out / "command.txt").write_text("\n".join(commands) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
