"""NIC affinity from `nvidia-smi topo -m`: GPU x NIC cells become topo.nic facts named after the NIC legend."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import ParseContext
from probes.topo_matrix import TopoMatrix

REPO = Path(__file__).resolve().parents[1]


def parse(text: str) -> list:
    ctx = ParseContext(source="topo.txt", node="n1", probe="topo_matrix")
    TopoMatrix().parse(text, ctx)
    return ctx.facts


def test_nic_columns_use_the_legend_names() -> None:
    facts = parse((REPO / "fixtures/format-examples/tui-demo/nvidia-smi-topo.txt").read_text())
    nics = {(f.gpu, f.nic): f.link for f in facts if f.KIND == "topo.nic"}
    assert nics == {(0, "mlx5_0"): "PXB", (0, "mlx5_1"): "SYS", (1, "mlx5_0"): "PXB", (1, "mlx5_1"): "SYS",
                    (2, "mlx5_0"): "SYS", (2, "mlx5_1"): "PXB", (3, "mlx5_0"): "SYS", (3, "mlx5_1"): "PXB"}
    assert len([f for f in facts if f.KIND == "topo.link"]) == 6       # the GPU pairs are unchanged


def test_without_a_legend_the_column_name_is_kept() -> None:
    text = "\tGPU0\tGPU1\tNIC0\tCPU Affinity\nGPU0\t X \tNV12\tNODE\t0-15\nGPU1\tNV12\t X \tSYS\t0-15\n"
    nics = [(f.gpu, f.nic, f.link, f.path) for f in parse(text) if f.KIND == "topo.nic"]
    assert nics == [(0, "NIC0", "NODE", "numa"), (1, "NIC0", "SYS", "cross_socket")]
