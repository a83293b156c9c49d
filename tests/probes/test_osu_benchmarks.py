"""OSU Micro-Benchmarks tables read as measurements (probes/osu_benchmarks.py).

Real text: CSCS's Open MPI and MPICH pages (osu_bw between two nodes with the network hook off: 1.8 and 1.4 GB/s;
fixtures/cases/ib-not-used-cscsdocs-*) and Oracle's OCI tutorial (osu_latency and osu_bw, D D, within a node
and between two A100 nodes on 100 Gb/s RoCE; fixtures/cases/healthy-ocitutorials-run-omb-gpu-a100-2node-osu-bw-dd-100g).
The expected figures were read off the tables by hand (OSU's MB is 10^6 bytes: 1802.75 MB/s = 14.422 Gbit/s).
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_document
from probes.osu_benchmarks import OsuBenchmarks

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
OMPI = CASES / "ib-not-used-cscsdocs-openmpi-osu-bw-gpu-no-cxi-hook" / "input" / "osu_bw.txt"
MPICH = CASES / "ib-not-used-cscsdocs-osu-bw-mpich-no-cxi-hook" / "input" / "osu_bw.txt"
ALLTOALL = CASES / "ib-not-used-cscsdocs-openmpi-osu-alltoall-gpu-no-cxi-hook" / "input" / "osu_alltoall.txt"
OCI = CASES / "healthy-ocitutorials-run-omb-gpu-a100-2node-osu-bw-dd-100g" / "input"


def _facts(path: Path) -> list[tuple]:
    text = path.read_text(encoding="utf-8")
    assert OsuBenchmarks.sniff(text[:4096])
    return [(f.KIND, f.tool, f.gbps if f.KIND == "bench.bandwidth" else f.avg_us, f.gpu, f.msg_bytes, f.origin.line)
            for f in parse_document(OsuBenchmarks, text, source=path.name, node="")]


@pytest.mark.parametrize("path, expected", [
    (OMPI, [("bench.bandwidth", "osu_bw", 14.422, True, 4194304, 27)]),       # "4194304  1802.75  Pass"
    (MPICH, [("bench.bandwidth", "osu_bw", 10.906, False, 2097152, 25)]),     # best row "2097152  1363.30"
    (OCI / "osu_intranode.txt", [("bench.latency", "osu_latency", 2.48, True, 1, 9),
                                 ("bench.bandwidth", "osu_bw", 2236.622, True, 268435456, 18)]),
    (OCI / "osu_internode.txt", [("bench.latency", "osu_latency", 3.89, True, 1, 8),
                                 ("bench.bandwidth", "osu_bw", 95.698, True, 268435456, 17)]),
    (ALLTOALL, []),                                                            # a collective's latencies: not read
])
def test_best_bandwidth_and_smallest_latency(path: Path, expected: list[tuple]) -> None:
    assert _facts(path) == expected


def test_a_benchmark_table_is_a_measurement_not_a_failure() -> None:
    # no expectation says what the link should carry: healthy, and if the job did fail, the causes of slow runs
    report = diagnose_files([str(OMPI.parent)])
    assert report.healthy and not report.diagnoses
    causes = yaml.safe_load((Path(__file__).resolve().parents[2] / "rules" / "causes.yaml").read_text())["causes"]
    slow = {c for c, entry in causes.items() if "slow_multinode" in entry.get("symptoms", [])}
    assert report.if_failed and {d.cause for d in report.if_failed} <= slow


@pytest.mark.parametrize("text", ["# OSU MPI Bandwidth Test v7.5\n# Size  Bandwidth (MB/s)\n1 \n2 x\n",
                                  "# OSU MPI Latency Test\n" + "9" * 5000 + "\n", "# OSU\n"])
def test_broken_tables_give_nothing(text: str) -> None:
    assert parse_document(OsuBenchmarks, text, source="x", node="") == []
