"""nccl-tests output written by several copies of one test at once (a build without MPI=1 under mpirun), read from
the result rows: verbatim rows of fixtures/cases/rank-nccl-tests-294-no-mpi-build, and a healthy sweep."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.nccl_tests import NcclTests

REPO = Path(__file__).resolve().parents[2]
# mpirun -np 16 of a non-MPI build: each process prints its own rows, interleaved in one output
INTERLEAVED = """\
   134217728      33554432     float     sum      -1    631.9  212.41    0.00      0     0.51  263017.30    0.00      0
   134217728      33554432     float     sum      -1    419.3  320.07    0.00      0     0.31  428400.03    0.00      0
   536870912     134217728     float     sum      -1   2202.2  243.79    0.00      0     0.31  1747057.96    0.00      0
   536870912     134217728     float     sum      -1    842.5  637.23    0.00      0     0.30  1777718.25    0.00      0
   268435456      67108864     float     sum      -1   1007.4  266.46    0.00      0     0.31  857621.27    0.00      0
   268435456      67108864     float     sum      -1    822.4  326.41    0.00      0     0.30  888564.90    0.00      0
   134217728      33554432     float     sum      -1    604.0  222.21    0.00      0     0.45  297996.73    0.00      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0
"""


def bench(text: str):
    (b,) = [f for f in parse_lines(NcclTests, text) if f.KIND == "bench.collective"]
    return b


def test_one_size_printed_by_several_processes_is_read_as_copies() -> None:
    assert bench(INTERLEAVED).copies_together == 2      # 134217728 three times: two extra copies at least


def test_a_healthy_sweep_prints_each_size_once() -> None:
    text = (REPO / "fixtures/cases/healthy-nccl-tests-331-a100-nvlink-sendrecv/input/sendrecv_perf.log").read_text()
    assert bench(text).copies_together == 0


def test_the_same_size_under_two_data_types_is_no_copy() -> None:
    """Constructed from the verbatim rows (the second relabelled 'half'): `-d all` sweeps each type in turn."""
    rows = INTERLEAVED.splitlines()
    other_type = rows[0].replace(" float ", " half  ")
    text = "\n".join([rows[0], other_type, rows[2], rows[4], "# Avg bus bandwidth    : 0"]) + "\n"
    assert bench(text).copies_together == 0
