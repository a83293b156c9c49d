"""NCCL_IB_HCA and NCCL_IB_GID_INDEX checked against the ports a node reports; rail layout per node."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate_node import gid_choice, hca_check, rail_layout, rdma_present
from doctor.facts.env import EnvVar
from doctor.facts.fabric import IbPort
from doctor.probing.contract import parse_document, parse_lines
from probes import LINE_PROBES
from probes.ib_devinfo import IbvDevinfo
from probes.topo_matrix import TopoMatrix

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probes"


def _ports(*specs: tuple[str, bool]) -> list:
    return [IbPort(node="n1", device=d, port=1, state="ACTIVE" if a else "DOWN", active=a) for d, a in specs]


def _checks(setting: str, ports: list) -> dict[str, tuple[bool, bool]]:
    facts = ports + [EnvVar(node="n1", name="NCCL_IB_HCA", value=setting)]
    return {c.entry: (c.found, c.active) for c in hca_check(facts)}


def test_each_hca_entry_is_found_active_down_or_absent() -> None:
    ports = _ports(("mlx5_0", True), ("mlx5_1", False))
    assert _checks("mlx5_0:1,mlx5_1:1,mlx5_4:1", ports) == {"mlx5_0:1": (True, True), "mlx5_1:1": (True, False),
                                                              "mlx5_4:1": (False, False)}
    assert _checks("mlx5_0:2", ports) == {"mlx5_0:2": (False, False)}


def test_hca_prefix_match_exact_match_and_exclusion() -> None:
    ports = _ports(("mlx5_10", True))
    assert _checks("mlx5_1", ports) == {"mlx5_1": (True, True)}          # NCCL matches prefixes by default
    assert _checks("=mlx5_1", ports) == {"mlx5_1": (False, False)}       # '=' asks for the exact name
    assert _checks("^mlx5_3", ports) == {}                               # an exclusion list names nothing to find


def test_one_job_wide_setting_applies_to_every_node() -> None:
    facts = _ports(("mlx5_0", True)) + [EnvVar(node="env", name="NCCL_IB_HCA", value="mlx5_7")]
    assert [(c.node, c.found) for c in hca_check(facts)] == [("n1", False)]


def test_gid_index_pointing_at_a_roce_v2_link_local_gid() -> None:
    facts = parse_document(IbvDevinfo, (FIXTURES / "ibv_devinfo/roce-v2-gids-active-and-port-down.txt").read_text(),
                           node="n1")
    facts.append(EnvVar(node="n1", name="NCCL_IB_GID_INDEX", value="1"))
    (choice,) = gid_choice(facts)                      # only the active RoCE port with a typed GID table
    assert (choice.device, choice.configured, choice.configured_found, choice.configured_version,
            choice.configured_ipv4, choice.v2_index) == ("mlx5_0", 1, True, "v2", False, 3)


def test_rails_are_nics_on_a_gpu_switch() -> None:
    facts = parse_document(TopoMatrix, (FIXTURES / "topo_matrix/dgx-h100-nv18-10nic-legend-tabs.txt").read_text(), node="n1")
    (layout,) = rail_layout(facts + [EnvVar(node="n1", name="NCCL_CROSS_NIC", value="1")])
    assert (layout.nics, layout.rails, layout.cross_nic) == (10, 8, "1")


def _rdma_sources(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    facts = [f for probe in LINE_PROBES for f in parse_lines(probe, text, source=path.name, node="n1")]
    return [(f.source, f.detail) for f in rdma_present(facts)]


def test_rdma_hardware_is_shown_by_an_ipoib_bootstrap_not_by_nccl_ib_disable_alone() -> None:
    logs = FIXTURES.parent / "logs"
    assert _rdma_sources(logs / "nccl-2.18-ib-job-with-memlock-64.out") == [("ipoib_interface", "ib0")]
    assert _rdma_sources(logs / "nccl-2.18-ib-disable-echo.log") == []       # ens3 only: nothing says IB exists


def test_a_healthy_socket_job_shows_no_rdma_hardware() -> None:
    case = FIXTURES.parent / "cases" / "healthy-espnet-1940-2node" / "input" / "rank_log.txt"
    assert _rdma_sources(case) == []
