"""A node policy compiled into facts (doctor/check/policy.py), so the one rule engine checks it.

Each policy item becomes one of these; rules under rules/policy/ compare measured facts against them.
`check` is the item's id (shm.min_bytes, versions.pinned.torch, ...): one JUnit testcase each.
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class PolicyMin(Fact):
    """A measured quantity must be at least `value`. measure: shm_bytes | memlock_kb | pcie_gen | pcie_width |
    ib_active_ports | ib_rate_gbps | busbw_gbs."""

    KIND = "policy.min"
    check: str = ""
    measure: str = ""
    value: float = -1
    text: str = ""                 # the requirement as written: "1G", "unlimited", "200"


@fact
class PolicyCount(Fact):
    """A count must equal `value`. measure: gpus."""

    KIND = "policy.count"
    check: str = ""
    measure: str = ""
    value: int = -1


@fact
class PolicyRequire(Fact):
    """A property must hold everywhere. what: nvlink_all_pairs."""

    KIND = "policy.require"
    check: str = ""
    what: str = ""


@fact
class PolicyPin(Fact):
    """A package must be at this version on every node."""

    KIND = "policy.pin"
    check: str = ""
    name: str = ""
    version: str = ""
    version_num: int = 0


@fact
class PolicyEqual(Fact):
    """A package must be at one version across all nodes."""

    KIND = "policy.equal"
    check: str = ""
    name: str = ""


@fact
class PolicyForbid(Fact):
    """An environment variable (an NCCL override) must not be set."""

    KIND = "policy.forbid"
    check: str = ""
    name: str = ""
