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
