"""version_num: one integer per version, ordered as the releases are, for NCCL / CUDA / torch (two digits a field)
and for NVIDIA drivers and calendar versions (three digits a field, their first field being 100 or more). Drivers of
one branch differ in the middle field, which two digits capped at 99: 535.104.05 and 535.154.05 (both real releases)
read the same, so a policy pin could not tell them apart."""
from __future__ import annotations

from doctor.probing.lines import version_num


def test_nccl_cuda_and_torch_keep_their_numbers() -> None:
    assert [version_num(v) for v in ("2.18.5", "12.1", "2.3.1+cu121", "2.7.8")] == [21805, 120100, 20301, 20708]


def test_driver_releases_of_one_branch_differ_and_keep_their_order() -> None:
    drivers = ["470.82.01", "535.104.05", "535.154.05", "535.161.08", "550.54.14", "570.133.20"]
    nums = [version_num(v) for v in drivers]
    assert nums == sorted(nums) and len(set(nums)) == len(nums)
    assert version_num("535.104.05") != version_num("535.154.05")


def test_no_number_is_zero() -> None:
    assert version_num("unknown") == 0
