"""The launcher, library and benchmark probes on hostile input, and their sniffers on each other's artifacts.

Golden parses of real-format samples live in fixtures/probes/<probe>/ (tests/probes/test_goldens.py); here:
random text never raises, truncated or garbled artifacts give no facts rather than wrong ones, and a
document probe claims only its own format.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doctor.expectations import parse_value
from doctor.probing.contract import parse_document, parse_lines
from probes import DOCUMENT_PROBES
from probes.accelerate import Accelerate
from probes.deepspeed import DeepSpeed
from probes.expectations import Expectations
from probes.horovod import Horovod
from probes.iperf3 import Iperf3Json, Iperf3Text
from probes.lightning import Lightning
from probes.nccl_tests_json import NcclTestsJson
from probes.nsys_stats import NsysStats
from probes.openmpi import OpenMpi
from probes.perftest import Perftest
from probes.remote_shell import RemoteShell
from probes.tensorflow import TensorFlow

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "fixtures" / "probes"
LINE = (Iperf3Text, RemoteShell, OpenMpi, Horovod, TensorFlow, DeepSpeed, Lightning, Accelerate)
DOCS = (Iperf3Json, Perftest, NcclTestsJson, NsysStats, Expectations)
# fragments of the real formats, shuffled into noise by hypothesis
WORDS = st.sampled_from([
    "receiver", "sender", "[SUM]", "Mbits/sec", "Connecting to host", "#bytes", "BW peak[Gb/sec]", "t_min[usec]",
    "Total Time (ns)", ",Name", "Start (ns),Duration (ns)", "\"results\":[", "Local host:", "Value:", "Message:",
    "Error:", "Missing ranks:", "1: [", "GLOBAL_RANK: 1, MEMBER: 2/", "machine_rank: ", "link_gbps:", "connect [",
    "target_address", "ssh: connect to host", "--mca", "mpirun", "UCX  ERROR", "-1", "nan", "1e309", "\t", "\n", ",",
])
NOISE = st.lists(st.one_of(WORDS, st.text(max_size=12)), max_size=40).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(text=NOISE)
def test_line_probes_never_raise(text: str) -> None:
    for probe in LINE:
        parse_lines(probe, text)


@settings(max_examples=60, deadline=None)
@given(text=NOISE)
def test_document_probes_never_raise(text: str) -> None:
    for probe in DOCS:
        parse_document(probe, text)


@pytest.mark.parametrize("probe", DOCS, ids=lambda p: p.name)
@pytest.mark.parametrize("text", ["", "{", "{\"start\": 3}", "\x00\x01binary", "[1, 2, 3]", "null",
                                  '{"start": {"test_start": 1, "connected": 5}, "end": {"sum_received": []}}',
                                  '{"version": 1, "start_time": "x", "config": 3, "results": 7, "env": {"a": 1}}',
                                  '{"version": 1, "start_time": "x", "results": [{"size": "big", "out_of_place": 3}]}',
                                  "Time (%),Total Time (ns),Instances,Name\nabc,def,ghi,jkl\n"])
def test_garbage_gives_no_measurement(probe, text: str) -> None:
    kinds = {f.KIND for f in parse_document(probe, text)}
    assert not kinds & {"bench.bandwidth", "bench.latency", "bench.collective_size", "profile.kernels",
                        "profile.gpu_idle", "bench.expectation"}, kinds


def test_truncated_iperf3_json_gives_nothing() -> None:
    text = (SAMPLES / "iperf3_json" / "client-1gbit-tbf.json").read_text()
    assert parse_document(Iperf3Json, text[: len(text) // 2]) == []


def test_nccl_tests_json_cut_mid_run_keeps_the_finished_sizes() -> None:
    facts = parse_document(NcclTestsJson, (SAMPLES / "nccl_tests_json" / "killed-mid-run.json").read_text())
    sizes = [f for f in facts if f.KIND == "bench.collective_size"]
    bench = next(f for f in facts if f.KIND == "bench.collective")
    assert [s.size for s in sizes] == [1048576, 16777216] and not bench.complete


def test_nccl_tests_json_redacts_secrets_and_keeps_only_nccl_like_env() -> None:
    facts = parse_document(NcclTestsJson, (SAMPLES / "nccl_tests_json" / "two-node-4-ranks.json").read_text())
    names = {f.name for f in facts if f.KIND == "env.var"}
    assert names == {"NCCL_IB_HCA", "NCCL_DEBUG"}


def test_nsys_trace_with_overlapping_kernels_counts_no_gap() -> None:
    head = "Start (ns),Duration (ns),CorrId,Device,Strm,Name\n"
    ms = 1_000_000
    rows = (f"0,{100 * ms},1,GPU (0),7,a\n{50 * ms},{100 * ms},2,GPU (0),21,b\n{150 * ms},{50 * ms},3,GPU (0),7,c\n"
            f"{1200 * ms},{100 * ms},4,GPU (0),7,d\n")
    idle = next(f for f in parse_document(NsysStats, head + rows) if f.KIND == "profile.gpu_idle")
    assert idle.busy_s == pytest.approx(0.3) and idle.idle_share == pytest.approx(1 - 300 / 1300, abs=1e-3)
    assert idle.largest_gap_ms == pytest.approx(1000.0) and idle.gaps_over_1ms == 1


def test_perftest_picks_the_best_average_and_converts_mb() -> None:
    text = (SAMPLES / "perftest" / "ib_read_bw-mbsec-roce.txt").read_text()
    bw = next(f for f in parse_document(Perftest, text))
    assert bw.gbps == pytest.approx(11209.87 * 1048576 * 8 / 1e9, rel=1e-4) and not bw.gpu


@pytest.mark.parametrize("sample,owner", [
    ("iperf3_json/client-1gbit-tbf.json", "iperf3_json"),
    ("nccl_tests_json/two-node-4-ranks.json", "nccl_tests_json"),
    ("perftest/ib_write_bw-cuda-gbits.txt", "perftest"),
    ("nsys_stats/kern-and-api-sum-2021.csv", "nsys_stats"),
    ("expectations/hdr-fabric.yaml", "expectations"),
    ("accelerate/default_config.yaml", None),          # an accelerate config is not an expectations file
    ("iperf3/client-1gbit-tbf.txt", None),
])
def test_each_document_probe_claims_only_its_format(sample: str, owner: str | None) -> None:
    head = (SAMPLES / sample).read_text()[:65536]
    claimed = {p.name for p in DOCUMENT_PROBES if p.sniff(head)} & {p.name for p in DOCS}
    assert claimed == ({owner} if owner else set()), claimed


@pytest.mark.parametrize("metric,text,value", [
    ("link_gbps", "10", 10.0), ("link_gbps", "800 Mbit/s", 0.8), ("link_gbps", "12.5 GB/s", 100.0),
    ("busbw_gbs", "90GB/s", 90.0), ("rdma_lat_us", "2 us", 2.0), ("rdma_lat_us", "0.002ms", 2.0),
    ("nccl_kernel_share", "35%", 0.35), ("nccl_kernel_share", "0.35", 0.35), ("gpu_idle_share", "20", 0.2),
])
def test_expectation_units(metric: str, text: str, value: float) -> None:
    assert parse_value(metric, text) == pytest.approx(value)


@pytest.mark.parametrize("metric,text", [("link_gbps", "ten"), ("link_gbps", "0"), ("busbw_gbs", "5 us"),
                                         ("unknown_metric", "3")])
def test_expectation_errors(metric: str, text: str) -> None:
    with pytest.raises(ValueError):
        parse_value(metric, text)


OMPI_SLOTS_ONE_LINE = ("There are not enough slots available in the system to satisfy the 8 slots \n"
                       "that were requested by the application:\n  python\n")                  # mit-han-lab/spvnas#10
OMPI_SLOTS_WRAPPED = ("There are not enough slots available in the system to satisfy the 2\n"
                      "slots that were requested by the application:\n\n  python\n")           # inducer/grudge#227


def test_open_mpi_refusing_more_ranks_than_slots_is_a_launch_config_error() -> None:
    whats = [[f.what for f in parse_lines(OpenMpi, text) if f.KIND == "launch.config_error"]
             for text in (OMPI_SLOTS_ONE_LINE, OMPI_SLOTS_WRAPPED)]
    assert whats == [["slots: Open MPI has fewer slots than the 8 ranks requested"],
                     ["slots: Open MPI has fewer slots than the 2 ranks requested"]]


OMPI_SLOTS_PASTE_CUT = ("here are not enough slots available in the system to satisfy the N\n"
                        "slots that were requested by the application:\n\n  ./all_reduce_perf\n")  # dstack#2451 (pasted)
OMPI_ALLOC_THEN_REFUSAL = (                                                                      # open-mpi/ompi#10641
    "======================   ALLOCATED NODES   ======================\n"
    "    queue-c5n18xlarge-dy-c5n18xlarge-1: slots=36 max_slots=0 slots_inuse=0 state=UP\n"
    "\tFlags: DAEMON_LAUNCHED:SLOTS_GIVEN\n"
    "    queue-c5n18xlarge-dy-c5n18xlarge-2: slots=36 max_slots=0 slots_inuse=0 state=UP\n"
    "    queue-c5n18xlarge-dy-c5n18xlarge-3: slots=36 max_slots=0 slots_inuse=0 state=UP\n"
    "    queue-c5n18xlarge-dy-c5n18xlarge-4: slots=36 max_slots=0 slots_inuse=0 state=UP\n"
    "=================================================================\n"
    "There are not enough slots available in the system to satisfy the 144\n")
OMPI_ALLOC_SHORT = (                                                                             # ORTE's format, 4 < 8
    "====================== ALLOCATED NODES ====================== \n"
    "r06-cn207: slots=1 max_slots=0 slots_inuse=0 state=UP \n"
    "r06-cn206: slots=1 max_slots=0 slots_inuse=0 state=UP \n"
    "        cn01: flags=0x10 slots=1 max_slots=0 slots_inuse=0 state=UP\n"
    "        cn02: flags=0x10 slots=2 max_slots=0 slots_inuse=1 state=UP\n"
    "There are not enough slots available in the system to satisfy the 8 slots \n")


def test_slots_refusal_read_without_its_first_word_and_against_the_printed_allocation() -> None:
    whats = [[f.what for f in parse_lines(OpenMpi, text) if f.KIND == "launch.config_error"]
             for text in (OMPI_SLOTS_PASTE_CUT, OMPI_ALLOC_THEN_REFUSAL, OMPI_ALLOC_SHORT)]
    assert whats == [["slots: Open MPI has fewer slots than the ranks requested"],
                     ["slots-listed: mpirun refused 144 ranks while its allocation lists 144 free slots on 4 nodes"],
                     ["slots: Open MPI has fewer slots than the 8 ranks requested"]]


# lightning#899 (fixtures/cases/driver-lightning-899-cpu-pytorch-gpus-requested): a CPU-only PyTorch under Lightning 0.7
LIGHTNING_EMPTY = ("pytorch_lightning.utilities.debugging.MisconfigurationException: \n"
                   "            You requested GPUs: [0]\n"
                   "            But your machine only has: []\n")
# Deep-Packet#4 (fixtures/cases/driver-deep-packet-4-cpuonly-pytorch-build)
LIGHTNING_NONE = "pytorch_lightning.utilities.exceptions.MisconfigurationException: GPUs requested but none are available.\n"
LIGHTNING_FEWER = ("lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [0, 1, 2, 3]\n"
                   " But your machine only has: [0, 1]\n")


def test_lightning_counting_no_gpu_is_no_ordinal_error() -> None:
    from probes.lightning import Lightning
    kinds = lambda text: [(f.KIND, f.get("error") if f.KIND == "cuda.error" else f.get("device"))   # noqa: E731
                          for f in parse_lines(Lightning, text)]
    assert kinds(LIGHTNING_EMPTY) == [("cuda.error", "none_counted")]
    assert kinds(LIGHTNING_NONE) == [("cuda.error", "none_counted")]
    assert kinds(LIGHTNING_FEWER) == [("launch.ordinal_error", 3)]
