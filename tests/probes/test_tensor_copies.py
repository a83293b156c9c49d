"""A copy between GPUs that arrives zeroed, read from printed tensors (probes/tensor_copies.py)."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.tensor_copies import TensorCopies


def copies(text: str) -> list[tuple[int, int, str, str]]:
    facts = parse_lines(TensorCopies, text, source="repl.txt", node="")
    return [(f.get("src_device"), f.get("dst_device"), f.get("sent"), f.get("arrived")) for f in facts]


def test_zeros_on_the_other_gpu_are_a_lost_copy() -> None:
    # dasharo-issues#436 (2x K80, fixed by iommu=soft), verbatim
    text = "tensor([1, 2])\ntensor([1, 2], device='cuda:0')\ntensor([0, 0], device='cuda:1')\n"
    assert copies(text) == [(0, 1, "1, 2", "0, 0")]


def test_denormal_dust_counts_as_nothing_arrived() -> None:
    text = "tensor([1., 2.], device='cuda:0')\n>>> x.to(1)\ntensor([1.4013e-45, 0.0000e+00], device='cuda:1')\n"
    assert copies(text) == [(0, 1, "1., 2.", "1.4013e-45, 0.0000e+00")]


def test_an_intact_copy_a_zero_source_or_another_shape_is_nothing() -> None:
    assert copies("tensor([1, 2], device='cuda:0')\ntensor([1, 2], device='cuda:1')\n") == []
    assert copies("tensor([0, 0], device='cuda:0')\ntensor([0, 0], device='cuda:1')\n") == []
    assert copies("tensor([1, 2, 3], device='cuda:0')\ntensor([0, 0], device='cuda:1')\n") == []


def test_zeros_on_the_same_gpu_or_far_below_are_nothing() -> None:
    assert copies("tensor([1, 2], device='cuda:1')\ntensor([0, 0], device='cuda:1')\n") == []
    far = "tensor([1, 2], device='cuda:0')\n" + "step\n" * 10 + "tensor([0, 0], device='cuda:1')\n"
    assert copies(far) == []


def test_two_ranks_printing_their_own_tensors_are_no_copy() -> None:
    text = "[rank0]: tensor([1., 2.], device='cuda:0')\n[rank1]: tensor([0., 0.], device='cuda:1')\n"
    assert copies(text) == []
