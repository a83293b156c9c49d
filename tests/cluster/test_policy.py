"""Policy files: compiled into policy facts, every malformed file refused with FILE:LINE (exit 2)."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.check.policy import DEFAULT_POLICY, UNLIMITED_KB, PolicyError, load
from doctor.facts.policy import PolicyCount, PolicyEqual, PolicyForbid, PolicyMin, PolicyPin, PolicyRequire


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return path


def test_every_item_compiles(tmp_path: Path) -> None:
    policy = load(write(tmp_path, """\
gpus: 8
nvlink: all_pairs
pcie: {gen: 4, width: 16}
ib: {active_ports: 4, rate_gbps: 200}
versions:
  pinned: {torch: 2.3.1}
  equal: [nccl]
shm: {min: 1G}
memlock: {min: unlimited}
busbw: {min_gbs: 10}
nccl: {forbidden: [NCCL_ALGO]}
"""))
    ids = [c.id for c in policy.checks]
    assert ids == ["gpus.count", "nvlink.all_pairs", "pcie.gen", "pcie.width", "ib.active_ports", "ib.rate_gbps",
                   "versions.pinned.torch", "versions.equal.nccl", "shm.min", "memlock.min", "busbw.min_gbs",
                   "nccl.forbidden.NCCL_ALGO"]
    kinds = {type(f) for f in policy.facts}
    assert kinds == {PolicyCount, PolicyRequire, PolicyMin, PolicyPin, PolicyEqual, PolicyForbid}
    by_check = {f.check: f for f in policy.facts}
    assert by_check["shm.min"].value == 2**30
    assert by_check["memlock.min"].value == UNLIMITED_KB
    assert by_check["versions.pinned.torch"].version_num == 20301
    assert by_check["pcie.width"].origin.line == 3 and by_check["nccl.forbidden.NCCL_ALGO"].origin.line == 11


def test_default_policy_loads() -> None:
    assert load(DEFAULT_POLICY).checks


@pytest.mark.parametrize("text,line,words", [
    ("shm: {min: 1G}\ngpus: 8\nnvlnk: all_pairs\n", 3, "unknown policy item 'nvlnk'"),
    ("shm:\n  min: 1G\n  max: 2G\n", 3, "unknown key 'max' in shm"),
    ("shm: {min: lots}\n", 1, "'lots' is not a size"),
    ("gpus: eight\n", 1, "gpus must be a non-negative number"),
    ("versions:\n  pinned:\n    torch: [2]\n", 3, "versions.pinned.torch needs a version"),
    ("nccl: {forbidden: [nccl algo]}\n", 1, "list of variable names"),
    ("pcie: {gen: 4\nwidth: 16\n", 2, "invalid YAML"),
    ("- gpus: 8\n", 1, "a policy is a mapping"),
    ("nvlink: some_pairs\n", 1, "nvlink takes 'all_pairs'"),
])
def test_malformed_policies_name_file_and_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(PolicyError) as err:
        load(path)
    assert str(err.value).startswith(f"{path}:{line}: "), str(err.value)
    assert words in str(err.value)


def test_missing_or_binary_policy_files(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match=r"nope\.yaml:1: cannot read"):
        load(tmp_path / "nope.yaml")
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PolicyError, match=r"bin\.yaml:1: "):
        load(binary)
