"""Expected bandwidth from topology: link class and healthy-node figures for GPU pairs and GPU-NIC pairs."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.aggregate import aggregate
from doctor.facts.fabric import ExpectedBandwidth
from doctor.facts.gpu import GpuDevice
from doctor.probing.contract import parse_document
from probes.ib_devinfo import IbvDevinfo
from probes.nvidia_smi_query import NvidiaSmiQuery
from probes.nvlink_status import NvlinkStatus
from probes.topo_matrix import TopoMatrix

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probes"


def _node(*parts: tuple[type, str]) -> dict[tuple[str, str], ExpectedBandwidth]:
    facts = []
    for probe, fixture in parts:
        facts += parse_document(probe, (FIXTURES / fixture).read_text(), node="n1")
    return {(f.a, f.b): f for f in aggregate(facts) if isinstance(f, ExpectedBandwidth)}


def test_dgx_h100_nvlink_pairs_and_gpudirect_nics() -> None:
    got = _node((TopoMatrix, "topo_matrix/dgx-h100-nv18-10nic-legend-tabs.txt"),
                (NvidiaSmiQuery, "nvidia_smi_query/h100-sxm-2gpu-x8-thermal-ecc.txt"),
                (IbvDevinfo, "ibv_devinfo/ib-ndr-active-and-init-no-sm.txt"))
    assert len([k for k in got if k[1].startswith("GPU")]) == 28
    pair = got[("GPU0", "GPU7")]
    assert (pair.link, pair.link_class, pair.link_gbs, pair.expected_gbs) == ("NV18", "nvlink4 x18", 450.0, 382.5)
    local = got[("GPU0", "mlx5_0")]
    assert (local.link, local.link_class, local.link_gbs, local.expected_gbs) == ("PIX", "ib 400G", 50.0, 47.5)
    assert "GPUDirect" in local.basis
    remote = got[("GPU4", "mlx5_0")]
    assert remote.link == "SYS" and remote.expected_gbs == pytest.approx(28.5) and "host memory" in remote.basis
    assert got[("GPU0", "mlx5_1")].expected_gbs == -1        # port in INIT: no rate to expect


def test_nvlink_rate_printed_by_nvlink_status_is_used() -> None:
    got = _node((TopoMatrix, "topo_matrix/dgx-a100-nv12-mlx5-columns-spaces.txt"),
                (NvlinkStatus, "nvlink_status/dgx-a100-12-links-one-inactive.txt"))
    pair = got[("GPU2", "GPU5")]
    assert (pair.link_class, pair.link_gbs, pair.expected_gbs) == ("nvlink3 x12", 300.0, 255.0)


def test_pcie_pairs_from_the_gpu_model_when_links_are_not_reported() -> None:
    facts = parse_document(TopoMatrix, (FIXTURES / "topo_matrix/pcie-8gpu-l40s-pix-node-sys-4nic.txt").read_text(), node="n1")
    facts.append(GpuDevice(node="n1", index=0, name="NVIDIA L40S"))
    got = {(f.a, f.b): f for f in aggregate(facts) if isinstance(f, ExpectedBandwidth)}
    pix, node, sys_ = got[("GPU0", "GPU1")], got[("GPU0", "GPU2")], got[("GPU0", "GPU7")]
    assert pix.link_class == "pcie gen4 x16" and pix.link_gbs == 31.5
    assert pix.expected_gbs > node.expected_gbs > sys_.expected_gbs > 0
    assert "typical for this GPU model" in pix.basis


def test_unknown_gpu_and_unknown_nic_say_so_instead_of_guessing() -> None:
    got = _node((TopoMatrix, "topo_matrix/pcie-4gpu-phb-sys-no-nic.txt"))
    assert all(f.expected_gbs == -1 and "unknown" in f.basis for f in got.values())
