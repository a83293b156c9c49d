"""Output copied from a terminal keeps the terminal's colour codes: nvidia-smi underlines the header of `topo -m`
("\\x1b[4mGPU0 ... NUMA Affinity\\x1b[0m") when it prints to a TTY. A document probe reads such a file as the same output
printed to a file. fixtures/cases/healthy-lab-gpu-topo/input/topo.txt was recorded on an H100 machine (the lab) and
read as plain text before: no topology fact at all."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.lines import without_colour
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES

RECORDED = Path(__file__).resolve().parents[2] / "fixtures/cases/healthy-lab-gpu-topo/input/topo.txt"


def test_the_recorded_header_carries_the_underline() -> None:
    assert RECORDED.read_bytes().startswith(b"\t\x1b[4mGPU0")


def test_an_underlined_topo_matrix_is_read_as_a_topology() -> None:
    facts = gather_files([str(RECORDED)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    assert [(f.get("gpu"), f.get("cpus")) for f in facts if f.KIND == "topo.affinity"] == [(0, "0-15")]


def test_colour_codes_go_and_line_breaks_stay() -> None:
    assert without_colour("\t\x1b[4mGPU0\tGPU1\x1b[0m\nGPU0\t X \tNV4\n") == "\tGPU0\tGPU1\nGPU0\t X \tNV4\n"
    assert without_colour("no codes [here]") == "no codes [here]"


def test_codes_whose_escape_was_lost_in_a_paste_go_too() -> None:
    """GitHub drops the ESC of a pasted Ray log: "[36m(Actor pid=N)[0m ValueError: ..." (lighteval PR #841, held-out
    batch HQ). A bare reset shows the loss; without one, brackets are text."""
    assert without_colour("[36m(run pid=1)[0m ValueError: x") == "(run pid=1) ValueError: x"
    assert without_colour("10.0.0.1: ^[[93m [WARNING] ^[[0m async_io") == "10.0.0.1:  [WARNING]  async_io"
    assert without_colour("tensor[36m] and [model]") == "tensor[36m] and [model]"


def test_a_ray_worker_exception_pasted_without_escapes_is_an_error_line() -> None:
    case = RECORDED.parents[2] / "ksb-lighteval-pr841-ray-dp2-tp2-no-gpu-in-actor/input"
    facts = gather_files([str(case)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    lines = [f.get("text") for f in facts if f.KIND == "log.error_line"]
    assert any("ValueError: Current node has no GPU available" in str(t) for t in lines)
