"""Who am I in this job: rank, world size and rendezvous address from torchrun's or Slurm's environment.

torchrun sets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT and hosts the store in its agent
(TORCHELASTIC_USE_AGENT_STORE=True: every rank connects as a client). Under `srun doctor cluster` the
ranks come from SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID, the rendezvous host is the first node of
SLURM_JOB_NODELIST and rank 0 hosts the store; the port is MASTER_PORT if set, else 29500 + job id % 1000.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping

from doctor.errors import UsageError


@dataclass(frozen=True)
class JobSpec:
    rank: int
    world_size: int
    local_rank: int
    master_addr: str
    master_port: int
    launcher: str                  # torchrun | slurm | env
    agent_store: bool              # torchrun's agent already hosts the store
    run_id: str                    # separates this run's keys in a shared store


def from_env(env: Mapping[str, str] | None = None) -> JobSpec:
    env = os.environ if env is None else env
    if "RANK" in env and "WORLD_SIZE" in env:
        return _spec(env, env["RANK"], env["WORLD_SIZE"], env.get("LOCAL_RANK", "0"),
                     "torchrun" if "TORCHELASTIC_RUN_ID" in env else "env")
    if "SLURM_PROCID" in env and "SLURM_NTASKS" in env:
        return _spec(env, env["SLURM_PROCID"], env["SLURM_NTASKS"], env.get("SLURM_LOCALID", "0"), "slurm")
    raise UsageError("doctor cluster needs a job: run it under torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) "
                     "or srun (SLURM_PROCID, SLURM_NTASKS, SLURM_JOB_NODELIST)")


def _spec(env: Mapping[str, str], rank: str, world: str, local: str, launcher: str) -> JobSpec:
    r, w, lr = _int("rank", rank), _int("world size", world), _int("local rank", local)
    if w < 1 or not 0 <= r < w:
        raise UsageError(f"rank {r} is outside world size {w}")
    addr = env.get("MASTER_ADDR", "")
    if not addr and launcher == "slurm":
        nodes = expand_nodelist(env.get("SLURM_JOB_NODELIST", env.get("SLURM_NODELIST", "")))
        addr = nodes[0] if nodes else ""
    if not addr:
        raise UsageError("MASTER_ADDR is not set (and no SLURM_JOB_NODELIST to take the first node from)")
    port_text = env.get("MASTER_PORT") or (str(29500 + _int("job id", env.get("SLURM_JOB_ID", "0")) % 1000)
                                           if launcher == "slurm" else "")
    if not port_text:
        raise UsageError("MASTER_PORT is not set")
    port = _int("MASTER_PORT", port_text)
    if not 0 < port < 65536:
        raise UsageError(f"MASTER_PORT {port} is not a TCP port")
    run_id = env.get("TORCHELASTIC_RUN_ID", "") + "." + env.get("TORCHELASTIC_RESTART_COUNT", "") if launcher == "torchrun" \
        else env.get("SLURM_JOB_ID", "") + "." + env.get("SLURM_STEP_ID", "")
    return JobSpec(r, w, lr, addr, port, launcher, env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true", run_id)


def _int(what: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{what} {text!r} is not a number") from None


_GROUP = re.compile(r"([^,\[]*)(?:\[([^\]]*)\])?([^,\[]*)")


def expand_nodelist(text: str) -> list[str]:
    """Slurm's compressed host list: 'gpu[01-03,07],login1' -> ['gpu01', 'gpu02', 'gpu03', 'gpu07', 'login1']."""
    out: list[str] = []
    for item in _split_top(text):
        m = _GROUP.fullmatch(item)
        if not m or not m.group(2):
            out.append(item)
            continue
        prefix, ranges, suffix = m.groups()
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            if hi and lo.isdigit() and hi.isdigit():
                out += [f"{prefix}{n:0{len(lo)}d}{suffix}" for n in range(int(lo), int(hi) + 1)][:100000]
            else:
                out.append(f"{prefix}{lo}{suffix}")
    return [h for h in out if h]


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets."""
    items, depth, cur = [], 0, ""
    for ch in text.strip():
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    return items + [cur] if cur else items
