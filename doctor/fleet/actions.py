"""What to do with a failed job, from its leading cause: the visible table below, one line per taxonomy id.

  node      a fault of the nodes named in the evidence (hardware, host setup): restart without them
  transient the run met a passing condition (a port still held): restart as is
  program   the program or its launch is wrong (code bug, shape or rank mismatch, OOM from the model's
            size, wrong settings): a restart fails the same way, so stop and fix it
  tuning    a performance finding, not a failure: no restart decision
"""
from __future__ import annotations

from dataclasses import dataclass

CAUSE_CLASS: dict[str, str] = {
    # the job's own program or its launch configuration: stop
    "port_blocked": "program",            # firewall / wrong port in the launch: fix the setup
    "master_addr_wrong": "program",
    "wrong_socket_ifname": "program",
    "version_mismatch": "program",
    "rank_config_error": "program",
    "ib_not_used": "program",
    "nccl_env_misuse": "program",
    "collective_desync": "program",       # ranks disagree on the collectives: a code bug
    "oom_model_states": "program",        # the model does not fit: OOM from the model's size
    "oom_activations": "program",
    "oom_fragmentation": "program",
    "oom_checkpoint_on_gpu": "program",
    "known_software_bug": "program",
    "rail_cross_nic": "program",
    # a node's hardware or host setup: restart excluding the nodes the evidence names
    "ib_port_down": "node",
    "gdr_disabled": "node",
    "roce_gid_misconfig": "node",
    "p2p_broken": "node",
    "no_nvlink_topology": "node",
    "shm_too_small": "node",
    "cuda_driver_mismatch": "node",
    "straggler": "node",
    "gpu_hw_fault": "node",
    "pcie_degraded": "node",
    "memlock_ulimit": "node",
    "ib_hca_mismatch": "node",
    "stale_process_gpu_memory": "node",
    "slow_network_link": "node",
    "mtu_mismatch": "node",
    "route_conflict": "node",
    "nofile_ulimit": "node",
    "firmware_outdated": "node",
    # passing: restart
    "port_in_use": "transient",           # a stale job still holds the port
    # performance, not failure
    "dataloader_bottleneck": "tuning",
    "comm_exposed": "tuning",
}


@dataclass(frozen=True)
class Decision:
    action: str                 # restart | restart_excluding | stop | unknown
    exclude: tuple[str, ...]
    reason: str


def cause_class(cause: str) -> str:
    return CAUSE_CLASS.get(cause, "unknown")


def supported(diagnosis: dict) -> bool:
    """A rule supports it: not a cause guessed from the symptom alone, which says what is usual, not what happened."""
    return bool(diagnosis.get("rules"))


def decide(diagnoses: list[dict], job_nodes: list[str], suspects: set[str]) -> Decision:
    """The job's decision from its leading diagnosis that a rule supports, and the fleet's suspect nodes among its
    own. Causes guessed from the symptom alone (no rule) decide nothing: they say what is usual, not what happened."""
    flagged = tuple(sorted(n for n in job_nodes if n in suspects))
    ruled = [d for d in diagnoses if supported(d)]
    if not ruled:
        found = f"only guesses ({diagnoses[0]['cause']} first)" if diagnoses else "no cause found"
        if flagged:
            return Decision("restart_excluding", flagged, f"{found}; {', '.join(flagged)} suspect fleet-wide")
        return Decision("unknown", (), f"{found} in the upload")
    top = ruled[0]
    kind = cause_class(top["cause"])
    if kind == "program":
        return Decision("stop", (), f"{top['cause']}: a program or launch error, a restart fails the same way")
    if kind == "node":
        exclude = tuple(sorted(set(top.get("nodes", [])) | set(flagged)))
        if exclude:
            return Decision("restart_excluding", exclude, f"{top['cause']} on {', '.join(exclude)}")
        return Decision("unknown", (), f"{top['cause']}: a node fault, but the evidence names no node")
    if kind == "transient":
        if flagged:
            return Decision("restart_excluding", flagged, f"{top['cause']} (passing); {', '.join(flagged)} suspect")
        return Decision("restart", (), f"{top['cause']}: passing, a restart should succeed")
    if kind == "tuning":
        return Decision("unknown", flagged, f"{top['cause']}: a performance finding, not a failure")
    return Decision("unknown", flagged, f"{top['cause']}: no decision for this cause")
