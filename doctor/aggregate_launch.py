"""Derived launch and environment facts (issue 12): a socket-interface setting NCCL never used while its init failed;
one NVIDIA library installed for two CUDA majors at once; an nccl-tests run with fewer ranks than mpirun started; a
log that ends on a step of distributed init."""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Callable, Iterable

from doctor.facts import Fact
from doctor.facts.env import EnvVar, PackageVersion, WheelConflict
from doctor.aggregate_nccl import WENT_ON
from doctor.facts.launch import BenchRanksShort, IfnameError, IfnameUnused, InitStopped, Interface, LaunchOption
from doctor.facts.topo import CollectiveBench
from doctor.facts.nccl import HandleCorrupt, NcclError

_NCCL_INTERFACE = ("nccl_bootstrap", "nccl_socket")
_INIT_FAILURES = ("internal", "system", "invalid_usage")
_CUDA_WHEEL = re.compile(r"^(?P<base>nvidia-[a-z0-9\-]+?|cupy|torch)-cu(?P<major>\d{2,3})$")


def _of(facts: Iterable[Fact], cls: type[Fact]) -> list:
    return [f for f in facts if isinstance(f, cls)]


def _matches(setting: str, name: str) -> bool:
    """NCCL's NCCL_SOCKET_IFNAME rule for one interface name: a comma list of prefixes, '=' for exact names."""
    exact = setting.startswith("=")
    wanted = [w for w in setting.lstrip("=").split(",") if w]
    return any(name == w if exact else name.startswith(w) for w in wanted)


def ifname_unused(facts: list[Fact]) -> list[Fact]:
    """NCCL_SOCKET_IFNAME includes some interfaces, NCCL's init failed, and NCCL never reported using a matching one.

    NCCL before 2.28 does not say that the named interface is missing: bootstrap goes on with an empty address and
    fails later as an internal error, or as a socket address of a garbage family. An exclusion ('^lo,docker') names
    what not to use, so it cannot match nothing this way. An interface NCCL reported that matches the setting shows
    the setting worked, whatever failed later.
    """
    settings = [e for e in _of(facts, EnvVar) if e.name == "NCCL_SOCKET_IFNAME" and e.value.strip("'\"")
                and not e.value.strip("'\"").startswith("^")]
    if not settings or _of(facts, IfnameError):       # an interface error says it already, in NCCL's words (NET010)
        return []
    failures = [f for f in _of(facts, NcclError) if f.code in _INIT_FAILURES] + _of(facts, HandleCorrupt)
    if not failures:
        return []
    used = {i.name for i in _of(facts, Interface) if i.used_by in _NCCL_INTERFACE}
    setting = settings[0].value.strip("'\"")
    if any(_matches(setting, name) for name in used):
        return []
    failure = failures[0]
    code = failure.code if isinstance(failure, NcclError) else "handle_corrupt"
    return [IfnameUnused(node=failure.node, rank=failure.rank, origin=failure.origin, ifname=setting,
                         interfaces_seen=len(used), failure=code)]


def wheel_conflicts(facts: list[Fact]) -> list[Fact]:
    """The same NVIDIA wheel installed for two CUDA majors in one environment (nvidia-nccl-cu12 and -cu13).

    Both ship a library of the same soname (libnccl.so.2): which one the process loads depends on the import and
    search order, so torch can run against the build it was not made for. Grouped per node; a list naming no host
    is one environment.
    """
    by_env: dict[tuple[str, str], dict[str, PackageVersion]] = defaultdict(dict)
    for p in _of(facts, PackageVersion):
        m = _CUDA_WHEEL.match(p.name)
        if m:
            by_env[(p.node, m["base"])].setdefault(m["major"], p)
    out: list[Fact] = []
    for (node, base), majors in sorted(by_env.items()):
        if len(majors) < 2:
            continue
        names = sorted(majors)
        witness = majors[names[-1]]
        out.append(WheelConflict(node=node, origin=witness.origin, package=base,
                                 variants=", ".join(f"{majors[k].name}=={majors[k].version}" for k in names),
                                 count=len(names)))
    return out


def bench_ranks_short(facts: list[Fact]) -> list[Fact]:
    """mpirun started N processes of an nccl-tests binary, and NCCL's communicator has fewer ranks than N times the
    GPUs each process drives: the processes did not join one job (a build without MPI=1 runs each as rank 0 of its
    own). The launch line must name a *_perf binary, so another program's mpirun is not compared."""
    launches = [o for o in _of(facts, LaunchOption) if o.launcher == "mpirun" and o.name == "np" and o.value.isdigit()
                and "_perf" in o.origin.text]
    benches = [b for b in _of(facts, CollectiveBench) if b.nranks >= 1]
    if not launches or not benches:
        return []
    launch, bench = launches[0], benches[0]
    per_process = max(bench.gpus, 1)
    if bench.nranks >= int(launch.value) * per_process:
        return []
    return [BenchRanksShort(node=launch.node, origin=launch.origin, launched=int(launch.value),
                            per_process=per_process, nranks=bench.nranks)]


# Besides what shows a job went on or failed in NCCL's case: rank 0 saw every process join (init passed the store), a
# stall a framework reported (a hang with its own line).
_INIT_WENT_ON = WENT_ON | {"launch.ranks_registered", "collective.stalled"}


def init_stopped(facts: list[Fact]) -> list[Fact]:
    """Per input, its last init line when no fact of that input comes after it and nothing anywhere shows the job
    went on or failed: the output stops in distributed init. An engineer reads a hung job's log from its end."""
    if any(f.KIND in _INIT_WENT_ON for f in facts):
        return []
    end: dict[str, int] = defaultdict(int)
    last: dict[str, Fact] = {}
    for f in facts:
        source, line = f.origin.source, f.origin.line
        if not source or not line:
            continue
        end[source] = max(end[source], line)
        if f.KIND == "launch.init_step" and line >= (last[source].origin.line if source in last else 0):
            last[source] = f
    return [InitStopped(node=f.node, rank=f.rank, origin=f.origin, framework=f.framework, step=f.step)
            for source, f in sorted(last.items()) if f.origin.line >= end[source]]


LAUNCH_ENV_AGGREGATORS: tuple[Callable[[list[Fact]], list[Fact]], ...] = (ifname_unused, wheel_conflicts, bench_ranks_short,
                                                                          init_stopped)
