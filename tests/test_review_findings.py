"""Issue 12's review findings, each on real text (lab-recorded here, or real-format fixtures): the derived facts
check their context, so a healthy or unrelated input no longer raises a cause."""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.hosts import UNKNOWN, file_node

ROOT = Path(__file__).resolve().parents[1]
LOGS, PROBES = ROOT / "fixtures" / "logs", ROOT / "fixtures" / "probes"


def causes(*paths: Path) -> dict[str, float]:
    report = diagnose_files([str(p) for p in paths])
    return {d.cause: d.confidence for d in report.diagnoses if d.rules}     # rule-backed: not the symptom's differential


# ---- node identity comes from content, not from file names ----

def test_two_files_without_host_evidence_are_no_version_skew() -> None:
    """collect_env recorded here (torch 2.13.0+cpu) and a real-format collect_env with torch 2.3.1: nothing says
    they come from two machines (before: two file names = two nodes = version_mismatch 0.70)."""
    got = causes(LOGS / "collect-env-torch-2.13-cpu-lab.txt", PROBES / "versions" / "collect-env-and-pins.txt")
    assert "version_mismatch" not in got, got


def test_nccl_logs_of_two_hosts_still_skew() -> None:
    """NCCL's own host:pid:tid prefixes name two machines with different NCCL versions: a real skew."""
    got = causes(PROBES / "nccl_log" / "nccl-2.12-ib-gdr-p2p.log", PROBES / "nccl_log" / "nccl-2.4-socket-ring.log")
    assert "version_mismatch" in got, got


def test_file_node_reads_prompts_and_prefixes_not_names() -> None:
    assert file_node((LOGS / "collect-env-torch-2.13-cpu-lab.txt").read_text()) == UNKNOWN
    assert file_node((PROBES / "nccl_log" / "nccl-2.21-roce-cumem-nvls.log").read_text()) == "h100-12"
    assert file_node("root@node-b:/workspace# accelerate env\n- `Accelerate` version: 0.28.0\n") == "node-b"
    assert file_node("node-a:1:2 [0] NCCL INFO x\nnode-b:3:4 [0] NCCL INFO y\n") == UNKNOWN   # a merge of two machines


def test_file_node_reads_a_rhel_style_prompt() -> None:
    """`[user@host dir]$` (RHEL, CentOS, Rocky), here after a conda prefix: nvidia-smi topo -m typed on a real node."""
    topo = LOGS / "ib039-rail-crossnic-slurmv4" / "topo-aihub0008.txt"
    assert file_node(topo.read_text()) == "tpgds-aihub0008"
    assert file_node("[root@node045 ~]# ibstatus\n") == "node045"
    assert file_node("[a@b] not a prompt\n") == UNKNOWN


# ---- IB is present only from hardware or user evidence; one node is no IB fallback ----

def test_healthy_single_node_log_is_not_ib_not_used() -> None:
    """NCCL 2.21 on one machine without an HCA prints 'NET/IB : No device found' (before: ib_not_used 0.91)."""
    assert causes(LOGS / "nccl-2.21-single-node-2gpu-healthy.log") == {}


def test_two_nodes_with_hca_named_but_no_device_is_ib_not_used() -> None:
    got = causes(LOGS / "nccl-2.19-two-node-ib-hca-set-no-device.log")
    assert max(got, key=got.get) == "ib_not_used", got


# ---- a GID index in the warning is no rail sign: RoCE GID faults and cross-rail pairings apart ----

def test_roce_link_local_gid_timeout_is_gid_misconfig_not_rails() -> None:
    """Before: 'local GID index 0' made IB004 rail_cross_nic 0.55 outrank IB005 roce_gid_misconfig 0.40."""
    got = causes(LOGS / "nccl-2.19-roce-link-local-gid-timeout.log")
    assert max(got, key=got.get) == "roce_gid_misconfig" and "rail_cross_nic" not in got, got


def test_four_rail_node_with_cross_subnet_gids_is_rail_cross_nic() -> None:
    got = causes(LOGS / "nccl-2.19-four-rail-roce-cross-subnet-timeout.log")
    assert max(got, key=got.get) == "rail_cross_nic" and "roce_gid_misconfig" not in got, got


# ---- launcher identity and an error actually present ----

def test_healthy_c10d_worker_transcript_raises_nothing() -> None:
    """A worker's endpoint is the master's name, not its own (before: master_addr_wrong 0.60 from NET013)."""
    assert causes(LOGS / "torchrun-c10d-worker-healthy.txt") == {}


def test_torchrun_rendezvous_connection_error_is_not_horovod() -> None:
    report = diagnose_files([str(PROBES / "launch_errors" / "torch-1.9-1.13-barrier-and-elastic.txt")])
    fired = {rule for d in report.diagnoses for rule in d.rules}
    assert "HVD004" not in fired and "NET018" in fired, fired


# ---- a symptom alone is no cause ----

def test_lone_watchdog_timeout_is_not_collective_desync() -> None:
    """torch 1.x watchdog line, one rank (before: collective_desync 0.55 from COLL001)."""
    got = causes(PROBES / "collectives" / "torch-1.x-watchdog-seqnum.txt")
    assert got.get("collective_desync", 0) < 0.5, got


def test_survivor_remote_error_does_not_blame_the_interface() -> None:
    """ncclRemoteError on a survivor with no network sign (before: NCCL001 wrong_socket_ifname 0.45 over the crash)."""
    got = causes(PROBES / "nccl_errors" / "nccl-2.18-ib-errors.txt")
    assert "wrong_socket_ifname" not in got, got


def test_pcie_switch_topology_alone_is_quiet() -> None:
    got = causes(PROBES / "topo_matrix" / "pcie-4gpu-pxb-pix-sys.txt")
    assert "p2p_broken" not in got and all(v < 0.5 for v in got.values()), got


# ---- one line, one vote per cause: duplicates removed ----

def test_nccl_system_error_with_loopback_connect_fires_one_rule_per_cause() -> None:
    """Before: NET008 and NCCL006 both named wrong_socket_ifname from the same DistBackendError."""
    report = diagnose_files([str(LOGS / "torch-2.3-nccl-system-error-loopback-connect.log")])
    ifname = [d for d in report.diagnoses if d.cause == "wrong_socket_ifname"]
    assert len(ifname) == 1 and ifname[0].rules == ["NET008"], [(d.cause, d.rules) for d in report.diagnoses]


def test_no_fixture_line_is_read_twice_for_one_cause_by_the_duplicates_removed() -> None:
    from tools.shared_lines import inputs, shared
    pairs = {ids for ids in shared(inputs())}
    removed = [("IB004", "IB040"), ("IB039", "IB040"), ("IB002", "IB041"), ("IB002", "IB008"), ("NET007", "NET015"),
               ("MPI001", "NET010"), ("TOPO002", "TOPO010"), ("BENCH001", "BENCH002"), ("IB030", "IB031"),
               ("DSP002", "RANK007"), ("LTN002", "RANK007"), ("MPI012", "RANK007"), ("RANK007", "TFD001")]
    assert not [p for p in removed if any(set(p) <= set(ids) for ids in pairs)]


def test_ib_disable_echo_says_disabled_only_with_a_value_other_than_0() -> None:
    from doctor.probing.contract import parse_lines
    from probes.nccl_log import NcclLogProbe

    def disabled(line: str) -> bool:
        facts = parse_lines(NcclLogProbe, f"gpu-a03:3011:3108 [0] NCCL INFO {line}\n", source="x.log", node="")
        return any(f.KIND == "nccl.ib_unavailable" for f in facts)
    assert disabled("NCCL_IB_DISABLE set by environment to 1.")
    assert not disabled("NCCL_IB_DISABLE set by environment to 0.")
    assert not disabled("NCCL_IB_DISABLE set by environ")      # a pasted line cut short says nothing
