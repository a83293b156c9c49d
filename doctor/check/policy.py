"""Policy files: read (YAML, with the line of every key), validated, and compiled into policy.* facts.

Every item becomes one check with an id (shm.min, versions.pinned.torch, ...) and one policy fact; the rules
under rules/policy/ compare measured facts against those facts, so there is no second evaluator here.
A malformed file raises PolicyError('FILE:LINE: what is wrong'), exit code 2.

    gpus: 8                                   # GPUs per node, exactly
    nvlink: all_pairs                         # every GPU pair on NVLink
    pcie: {gen: 4, width: 16}                 # every GPU link at least this generation and lane count
    ib: {active_ports: 4, rate_gbps: 200}     # at least N RDMA ports ACTIVE, every active one at least this rate
    versions:
      pinned: {torch: 2.3.1}                  # this version on every node
      equal: [torch, nccl, driver]            # one version across nodes
    shm: {min: 1G}                            # /dev/shm size; K/M/G/T are powers of 1024
    memlock: {min: unlimited}                 # or a size
    busbw: {min_gbs: 10}                      # all_reduce bus bandwidth of the job (needs a job)
    nccl: {forbidden: [NCCL_ALGO, NCCL_PROTO]}
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from doctor.errors import DoctorError
from doctor.facts import Fact, Origin
from doctor.facts.policy import PolicyCount, PolicyEqual, PolicyForbid, PolicyMin, PolicyPin, PolicyRequire
from doctor.probing.lines import version_num

DEFAULT_POLICY = Path(__file__).with_name("default-policy.yaml")
UNLIMITED_KB = float(2**53)
_SIZE = re.compile(r"^\s*(?P<n>\d+(?:\.\d+)?)\s*(?P<u>[KMGT]?)(?:i?B)?\s*$", re.I)
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


class PolicyError(DoctorError):
    exit_code = 2


@dataclass(frozen=True)
class Check:
    id: str
    text: str                      # the requirement, for people: "shm >= 1G"
    line: int


@dataclass
class Policy:
    path: str
    checks: list[Check] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)

    def add(self, check: str, line: int, text: str, fact: Fact) -> None:
        origin = Origin(self.path, line, text, "policy", "file")
        self.checks.append(Check(check, text, line))
        self.facts.append(_with_origin(fact, origin))


def _with_origin(fact: Fact, origin: Origin) -> Fact:
    from dataclasses import replace
    return replace(fact, origin=origin)


class _LineDict(dict):  # type: ignore[type-arg]
    lines: dict[str, int]


MAX_POLICY_BYTES = 2**20      # a policy is a page of YAML; 100 MB took 110 s and 3.2 GB


class _Loader(yaml.SafeLoader):
    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        """Refuse aliases: nine nested `*a` lists of nine (455 bytes) expand to 387 million strings."""
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise PolicyError(f"{getattr(self, '_policy_path', '?')}:{mark.line + 1}: YAML aliases (*name) are not "
                              "allowed in a policy; write the value out")
        return super().compose_node(parent, index)


def _mapping(loader: _Loader, node: yaml.MappingNode) -> _LineDict:
    out = _LineDict(loader.construct_mapping(node, deep=True))
    out.lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value}
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load(path: str | Path) -> Policy:
    path = Path(path)
    try:
        if not path.is_file():
            raise PolicyError(f"{path}:1: cannot read the policy: not a regular file")
        with path.open("rb") as fh:
            raw = fh.read(MAX_POLICY_BYTES + 1)
        if len(raw) > MAX_POLICY_BYTES:
            raise PolicyError(f"{path}:1: larger than {MAX_POLICY_BYTES // 1024} KiB; a policy is a short YAML file")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{path}:1: cannot read the policy: {getattr(exc, 'strerror', None) or exc}") from None
    loader = _Loader(text)
    loader._policy_path = str(path)  # type: ignore[attr-defined]
    try:
        data = loader.get_single_data()
    except RecursionError:
        raise PolicyError(f"{path}:1: invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PolicyError(f"{path}:{mark.line + 1 if mark else 1}: invalid YAML: {problem}") from None
    finally:
        loader.dispose()
    if data is None:
        data = _LineDict()
        data.lines = {}
    if not isinstance(data, dict):
        raise PolicyError(f"{path}:1: a policy is a mapping of items (gpus, shm, versions, ...)")
    return compile_policy(data, str(path))


def compile_policy(data: _LineDict, path: str) -> Policy:
    policy = Policy(path)
    for key, value in data.items():
        line = data.lines.get(str(key), 1)
        compiler = ITEMS.get(str(key))
        if compiler is None:
            raise PolicyError(f"{path}:{line}: unknown policy item {key!r} (known: {', '.join(ITEMS)})")
        compiler(policy, value, line, _Where(path, line, getattr(value, "lines", {})))
    return policy


@dataclass
class _Where:
    path: str
    line: int
    lines: dict[str, int]

    def at(self, key: str) -> int:
        return self.lines.get(key, self.line)

    def fail(self, key: str, message: str) -> PolicyError:
        return PolicyError(f"{self.path}:{self.at(key)}: {message}")


def _keys(value: Any, where: _Where, item: str, known: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.fail("", f"{item} takes a mapping with {', '.join(known)}")
    for key in value:
        if key not in known:
            raise where.fail(str(key), f"unknown key {key!r} in {item} (known: {', '.join(known)})")
    return value


def _number(value: Any, where: _Where, key: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise where.fail(key, f"{what} must be a non-negative number, not {value!r}")
    return float(value)


def size_bytes(value: Any, where: _Where, key: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    m = _SIZE.match(str(value)) if isinstance(value, str) else None
    if not m:
        raise where.fail(key, f"{value!r} is not a size (a number of bytes, or like 64M, 1G, 1.5GiB)")
    return float(m["n"]) * 1024 ** "_KMGT".index(m["u"].upper() or "_")


def _gpus(policy: Policy, value: Any, line: int, where: _Where) -> None:
    count = _number(value, where, "", "gpus")
    policy.add("gpus.count", line, f"{int(count)} GPUs per node", PolicyCount(check="gpus.count", measure="gpus", value=int(count)))


def _nvlink(policy: Policy, value: Any, line: int, where: _Where) -> None:
    if value not in ("all_pairs", True):
        raise where.fail("", f"nvlink takes 'all_pairs', not {value!r}")
    policy.add("nvlink.all_pairs", line, "NVLink between every GPU pair",
               PolicyRequire(check="nvlink.all_pairs", what="nvlink_all_pairs"))


def _pcie(policy: Policy, value: Any, line: int, where: _Where) -> None:
    for key, v in _keys(value, where, "pcie", ("gen", "width")).items():
        n = _number(v, where, key, f"pcie.{key}")
        policy.add(f"pcie.{key}", where.at(key), f"PCIe {key} >= {n:g} on every GPU",
                   PolicyMin(check=f"pcie.{key}", measure=f"pcie_{key}", value=n, text=str(v)))


def _ib(policy: Policy, value: Any, line: int, where: _Where) -> None:
    for key, v in _keys(value, where, "ib", ("active_ports", "rate_gbps")).items():
        n = _number(v, where, key, f"ib.{key}")
        text = f">= {n:g} RDMA ports ACTIVE" if key == "active_ports" else f"every ACTIVE RDMA port >= {n:g} Gb/s"
        policy.add(f"ib.{key}", where.at(key), text, PolicyMin(check=f"ib.{key}", measure=f"ib_{key}", value=n, text=str(v)))


def _versions(policy: Policy, value: Any, line: int, where: _Where) -> None:
    items = _keys(value, where, "versions", ("pinned", "equal"))
    pinned = items.get("pinned") or {}
    if not isinstance(pinned, dict):
        raise where.fail("pinned", "versions.pinned maps package names to versions")
    for name, version in pinned.items():
        at = getattr(pinned, "lines", {}).get(str(name), where.at("pinned"))
        if not isinstance(version, (str, int, float)) or isinstance(version, bool) or not version_num(str(version)):
            raise PolicyError(f"{where.path}:{at}: versions.pinned.{name} needs a version like 2.3.1, not {version!r}")
        check = f"versions.pinned.{name}"
        policy.add(check, at, f"{name} == {version}",
                   PolicyPin(check=check, name=str(name), version=str(version), version_num=version_num(str(version))))
    equal = items.get("equal") or []
    if not isinstance(equal, list) or not all(isinstance(n, str) for n in equal):
        raise where.fail("equal", "versions.equal is a list of package names")
    for name in equal:
        policy.add(f"versions.equal.{name}", where.at("equal"), f"one {name} version on every node",
                   PolicyEqual(check=f"versions.equal.{name}", name=name))


def _shm(policy: Policy, value: Any, line: int, where: _Where) -> None:
    raw = _keys(value, where, "shm", ("min",)).get("min")
    policy.add("shm.min", where.at("min"), f"/dev/shm >= {raw}",
               PolicyMin(check="shm.min", measure="shm_bytes", value=size_bytes(raw, where, "min"), text=str(raw)))


def _memlock(policy: Policy, value: Any, line: int, where: _Where) -> None:
    raw = _keys(value, where, "memlock", ("min",)).get("min")
    kb = UNLIMITED_KB if str(raw).lower() in ("unlimited", "-1", "infinity") else size_bytes(raw, where, "min") / 1024
    policy.add("memlock.min", where.at("min"), f"memlock >= {raw}",
               PolicyMin(check="memlock.min", measure="memlock_kb", value=kb, text=str(raw)))


def _busbw(policy: Policy, value: Any, line: int, where: _Where) -> None:
    raw = _keys(value, where, "busbw", ("min_gbs",)).get("min_gbs")
    gbs = _number(raw, where, "min_gbs", "busbw.min_gbs")
    policy.add("busbw.min_gbs", where.at("min_gbs"), f"all_reduce busbw >= {gbs:g} GB/s", expected_busbw(gbs))


def expected_busbw(gbs: float, text: str = "") -> PolicyMin:
    return PolicyMin(check="busbw.min_gbs", measure="busbw_gbs", value=gbs, text=text or f"{gbs:g}",
                     origin=Origin(text or "policy", 0, f"busbw >= {gbs:g} GB/s", "policy", "file"))


def _nccl(policy: Policy, value: Any, line: int, where: _Where) -> None:
    names = _keys(value, where, "nccl", ("forbidden",)).get("forbidden") or []
    if not isinstance(names, list) or not all(isinstance(n, str) and _ENV_NAME.match(n) for n in names):
        raise where.fail("forbidden", "nccl.forbidden is a list of variable names like NCCL_ALGO")
    for name in names:
        policy.add(f"nccl.forbidden.{name}", where.at("forbidden"), f"{name} not set",
                   PolicyForbid(check=f"nccl.forbidden.{name}", name=name))


ITEMS = {"gpus": _gpus, "nvlink": _nvlink, "pcie": _pcie, "ib": _ib, "versions": _versions, "shm": _shm,
         "memlock": _memlock, "busbw": _busbw, "nccl": _nccl}
