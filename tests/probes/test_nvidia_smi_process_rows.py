"""probes/nvidia_smi_table.py: the rows of the default table's Processes section as gpu.process facts.

The rows are verbatim from apache/mxnet#4242 (fixtures/cases/stale-mxnet-4242: old layout, two processes whose name
nvidia-smi could not read, printed as "Unknown Error"; one row whose name column is cut short) and from the newer
layout with GI/CI columns (fixtures/probes/nvidia_smi_table/processes-only-r470.txt).
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.nvidia_smi_table import NvidiaSmiTable

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
MIB = 1024 * 1024


def _processes(text: str) -> dict[int, object]:
    return {f.pid: f for f in parse_lines(NvidiaSmiTable, text) if f.KIND == "gpu.process"}


def test_a_name_nvidia_smi_could_not_read_is_a_process_not_visible_here() -> None:
    text = (ROOT / "cases" / "stale-mxnet-4242" / "input" / "nvidia-smi.txt").read_text(encoding="utf-8")
    procs = _processes(text)
    assert sorted(procs) == [7653, 11827, 13386, 18049, 27707, 31794]
    zombie = procs[31794]
    assert (zombie.gpu, zombie.name, zombie.state, zombie.used_bytes) == (0, "Unknown Error", "not_visible", 5371 * MIB)
    assert procs[27707].state == "not_visible" and procs[27707].gpu == 1
    assert {procs[p].state for p in (7653, 13386, 18049, 11827)} == {"unknown"}
    assert procs[13386].name == "/xx/xxx/caffe" and procs[13386].used_bytes == 1205 * MIB


def test_the_newer_layout_with_instance_columns() -> None:
    text = (ROOT / "probes" / "nvidia_smi_table" / "processes-only-r470.txt").read_text(encoding="utf-8")
    (proc,) = _processes(text).values()
    assert (proc.gpu, proc.pid, proc.name, proc.state, proc.used_bytes) == (0, 1395, "python", "unknown", 25081 * MIB)


def test_no_running_processes_is_no_process() -> None:
    text = ("| Processes:                                                       GPU Memory |\n"
            "|  No running processes found                                                 |\n")
    assert not _processes(text)
