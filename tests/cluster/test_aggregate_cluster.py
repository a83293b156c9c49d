"""Whole-job aggregations: the odd node, slow links from pair tests, stragglers, busbw against expectations,
node summaries of PCIe and RDMA ports (from the node probes' kinds, read by name)."""
from __future__ import annotations


from doctor.aggregate import aggregate
from doctor.aggregate_cluster import busbw_check, ib_summary, node_skew, pcie_summary, slow_links, stragglers
from doctor.facts import Fact, Origin
from doctor.facts.base import fact
from doctor.facts.cluster import BusBandwidth, ClusterRank, NodeInfo, PairBandwidth, RankTiming
from doctor.facts.env import EnvVar, PackageVersion, ShmSize
from doctor.facts.policy import PolicyMin

LIVE_ENV = Origin("environment", 1, "", "env_vars", "live")


def nodes(*names: str) -> list[Fact]:
    return [NodeInfo(node=n, gpus=8) for n in names] + [ClusterRank(node=names[0], rank=0)]


def env(node: str, name: str, value: str) -> EnvVar:
    return EnvVar(node=node, name=name, value=value, source="environ", origin=LIVE_ENV)


def test_the_minority_node_is_named() -> None:
    facts = nodes("a", "b", "c") + [env("b", "NCCL_ALGO", "Tree"),
                                    PackageVersion(node="a", name="torch", version="2.3.1"),
                                    PackageVersion(node="b", name="torch", version="2.3.1"),
                                    PackageVersion(node="c", name="torch", version="2.1.0")]
    skews = {(s.what, s.name, s.node, s.value, s.majority) for s in node_skew(facts)}
    assert skews == {("env", "NCCL_ALGO", "b", "Tree", "<unset>"), ("version", "torch", "c", "2.1.0", "2.3.1")}


def test_tie_keeps_rank_zeros_node_as_the_norm() -> None:
    facts = nodes("a", "b") + [PackageVersion(node="a", name="nccl", version="2.21.5"),
                               PackageVersion(node="b", name="nccl", version="2.18.1")]
    assert [(s.node, s.majority) for s in node_skew(facts)] == [("b", "2.21.5")]


def test_logged_env_and_debug_variables_are_no_skew() -> None:
    logged = EnvVar(node="b", name="NCCL_ALGO", value="Tree", source="environ", origin=Origin("node1.log", 3))
    facts = nodes("a", "b") + [logged, env("b", "NCCL_DEBUG", "INFO")]
    assert node_skew(facts) == []


def test_net_plugin_on_some_nodes() -> None:
    facts = [NodeInfo(node="a", net_plugin="libnccl-net.so"), NodeInfo(node="b", net_plugin="libnccl-net.so"),
             NodeInfo(node="c")]
    assert [(s.what, s.node, s.value) for s in node_skew(facts)] == [("net_plugin", "c", "<unset>")]


def test_one_node_is_never_skewed() -> None:
    assert node_skew(nodes("a") + [env("a", "NCCL_ALGO", "Tree")]) == []


def pairs(rates: dict[tuple[str, str], float]) -> list[Fact]:
    return [PairBandwidth(node=a, peer=b, gbs=g) for (a, b), g in rates.items()]


def test_slow_node_from_pair_facts() -> None:
    out = slow_links(pairs({("n0", "n1"): 1.2, ("n1", "n2"): 0.002, ("n0", "n2"): 0.002}))
    assert [(s.scope, s.node, s.tests) for s in out] == [("node", "n2", 2)]
    assert out[0].ratio < 0.01


def test_straggler_needs_a_clear_gap_and_unshared_cores() -> None:
    timings = [RankTiming(rank=r, node="n", work_s=0.1) for r in range(3)] + [RankTiming(rank=3, node="m", work_s=0.35)]
    assert [(s.rank, s.ratio) for s in stragglers(timings)] == [(3, 3.5)]
    shared = [RankTiming(rank=r, node="n", work_s=0.1 + 0.3 * (r == 3), shared=True) for r in range(4)]
    assert stragglers(shared) == []
    assert stragglers([RankTiming(rank=r, node="n", work_s=0.010 + 0.001 * r) for r in range(4)]) == []


def bus(gbs: float, backend: str = "gloo", nodes_: int = 2) -> BusBandwidth:
    return BusBandwidth(node="n0", rank=0, op="all_reduce", backend=backend, bytes=2**20, ranks=4, nodes=nodes_, busbw_gbs=gbs)


def test_busbw_without_expectation_just_reports() -> None:
    (check,) = busbw_check([bus(0.3), bus(0.4)])
    assert (check.measured_gbs, check.expected_gbs, check.basis) == (0.4, -1.0, "")


def test_busbw_against_policy_names_the_slow_link() -> None:
    facts = [bus(0.2), PolicyMin(measure="busbw_gbs", value=1.0)] + \
        pairs({("n0", "n1"): 1.2, ("n1", "n2"): 0.002, ("n0", "n2"): 0.002})
    (check,) = busbw_check(facts)
    assert (check.expected_gbs, check.basis, check.ratio) == (1.0, "policy", 0.2)
    assert check.limited_by == "n2's network link"


@fact
class TopoExpected(Fact):       # stands in for the node probes' topo.expected (not in this build)
    KIND = "topo.expected"
    a: str = ""
    b: str = ""
    link_class: str = ""
    expected_gbs: float = -1


def test_busbw_against_topology_for_nccl() -> None:
    facts = [bus(12.0, "nccl", 2), TopoExpected(node="n0", a="GPU0", b="mlx5_0", link_class="ib 400G", expected_gbs=47.5),
             TopoExpected(node="n0", a="GPU0", b="GPU1", link_class="nvlink4 x18", expected_gbs=382.0)]
    (check,) = busbw_check(facts)
    assert (check.expected_gbs, check.basis) == (47.5, "topology")
    assert check.limited_by == "GPU0-mlx5_0 ib 400G on n0"


@fact
class PcieLink(Fact):           # stands in for the node probes' gpu.pcie
    KIND = "gpu.pcie"
    gpu: int = -1
    gen_max: int = -1
    width: int = -1


@fact
class IbPort(Fact):             # stands in for the node probes' ib.port
    KIND = "ib.port"
    state: str = ""
    active: bool = False
    rate_gbps: float = -1


def test_node_summaries_from_probe_kinds() -> None:
    (p,) = pcie_summary([PcieLink(node="n", gpu=0, gen_max=5, width=16), PcieLink(node="n", gpu=1, gen_max=4, width=8),
                         PcieLink(node="n", gpu=-1, gen_max=3, width=4)])
    assert (p.gpus, p.min_gen, p.min_width) == (2, 4, 8)
    (ib,) = ib_summary([IbPort(node="n", state="ACTIVE", active=True, rate_gbps=400), IbPort(node="n", state="DOWN"),
                        IbPort(node="n", state="4: ACTIVE", rate_gbps=200)])
    assert (ib.ports, ib.active, ib.min_active_gbps) == (3, 2, 200)


def test_aggregate_runs_the_cluster_steps() -> None:
    kinds = {f.KIND for f in aggregate(nodes("a", "b") + [env("b", "NCCL_PROTO", "LL")])}
    assert "cluster.skew" in kinds


def test_resource_outliers_say_which_way() -> None:
    facts = [NodeInfo(node=n, gpus=g, rdma_devices=0) for n, g in (("a", 8), ("b", 8), ("c", 7))]
    facts += [ShmSize(node="a", size=2.0**35), ShmSize(node="b", size=2.0**35), ShmSize(node="c", size=2.0**26)]
    out = {(s.name, s.node): s.below for s in node_skew(facts)}
    assert out == {("gpus", "c"): True, ("shm_bytes", "c"): True}
