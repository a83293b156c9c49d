"""This node's facts for `doctor cluster` and `doctor check`: the live node probes when this build has them,
else a minimal local gather. Kept tiny on purpose: LIVE_GATHER is the one line to rewire.

The live gather is called as ``gather(timeout_s)`` and must return a list of facts; anything else it does
(an ImportError, a missing function, an exception) falls back to doctor.cluster.local_gather, whose facts
add what only `doctor cluster` needs (cluster.node) and the DOCTOR_TEST_VERSIONS test hook either way.
"""
from __future__ import annotations

import importlib
from typing import Callable

from doctor.cluster import local_gather
from doctor.facts import Fact

LIVE_GATHER = "doctor.probing.node:gather_facts"    # the node probes, read like `doctor scan` reads them


def _live() -> Callable[[float | None], list[Fact]] | None:
    module, _, name = LIVE_GATHER.partition(":")
    try:
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        return None


def gather(timeout_s: float | None = None) -> list[Fact]:
    facts: list[Fact] | None = None
    live = _live()
    if live is not None:
        try:
            result = live(timeout_s)
            facts = list(getattr(result, "facts", result))
        except Exception:  # noqa: BLE001 - a broken live gather must not cost the whole job's diagnosis
            facts = None
    local = local_gather.gather()
    if facts is None:
        return local_gather.with_job_facts(local)
    # The in-process gather (environment, versions, /dev/shm, memlock) is what the job-level skew rules were
    # built on; the live probes add what only they can see (GPUs, topology, RDMA ports, kernel, PCIe).
    kinds = {f.KIND for f in local}
    return local_gather.with_job_facts(local + [f for f in facts if f.KIND not in kinds])
