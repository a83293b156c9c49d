"""Error lines: a launcher's report that a process exited badly, and a log's own "[error]" severity tag (issue 12).

Real text: NVIDIA/nccl#241 (fixtures/cases/p2p-nccl-241-xorg-peer-mappings: nccl-tests under mpirun, the test
process exits with code 3 after its header) and ofiwg/libfabric#12673
(fixtures/cases/roce-gid-libfabric-12673-linklocal-default: fi_pingpong's "[error] ... fi_av_insert"). Both inputs
read as healthy before: their only failure lines were in wordings no probe read. So did Open MPI's "mpirun noticed that
the job aborted" (users list 2010/09/14562, held-out batch NK: the whole output of a job whose hosts ran two releases).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from probes.error_lines import classify

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "fixtures" / "cases"


@pytest.mark.parametrize("line", [
    "a non-zero exit code.. Per user-direction, the job has been aborted.\n",                       # nccl#241
    "mpirun detected that one or more processes exited with non-zero status, thus causing\n",       # nccl#241
    "[error] util/pingpong.c:1580: fi_av_insert: number of addresses inserted = 0;\n",             # libfabric#12673
    "mpirun noticed that the job aborted, but has no info as to the process\n",                   # users list 2010/09/14562
])
def test_a_failure_line(line: str) -> None:
    assert classify(line) in ("failed", "error")


@pytest.mark.parametrize("line", [
    "  Exit code:    3\n",                         # the field under mpirun's message, not a line of its own
    "exited with code 0\n",
    "# log: [errors] none\n",
])
def test_no_failure_line(line: str) -> None:
    assert classify(line) == ""


@pytest.mark.parametrize("case", ["p2p-nccl-241-xorg-peer-mappings", "roce-gid-libfabric-12673-linklocal-default",
                                  "version-mismatch-ompi-users-2010-14562-ubuntu-karmic-lucid-packages-job-aborted"])
def test_the_input_is_no_longer_healthy(case: str) -> None:
    report = diagnose_files([str(CASES / case / "input")])
    assert not report.healthy
    assert report.unexplained_lines
