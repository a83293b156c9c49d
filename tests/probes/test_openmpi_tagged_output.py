"""Open MPI's `mpirun --tag-output` (Kubeflow's MPIJob, Horovod) puts "[job,rank]<stdout>:" before every line a rank
writes. The writer is that rank, not the text: nccl-tests' result rows behind it are rows, and an NCCL_DEBUG line
behind it still names its host. Texts verbatim from fixtures/cases/ib-not-used-awsdoeks-karpenter-efa-not-requested
(aws-samples/aws-do-eks, the Karpenter guide's run without EFA) and fixtures/probes/nccl_comm_ranks."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from doctor_cli import REPO
from doctor.probing.lines import who
from probes.nccl_tests import NcclTests

KARPENTER = REPO / "fixtures/cases/ib-not-used-awsdoeks-karpenter-efa-not-requested/input/nccl_tests.log"
TAGGED_NCCL = ("[1,8]<stdout>:nccl-tests-efa-worker-1:25:69 [0] NCCL INFO comm 0x7f9ef0000dc0 rank 8 nranks 16 cudaDev 0 "
               "busId 101c0 - Init COMPLETE")


def test_the_tag_is_the_writer_and_the_rest_is_the_text() -> None:
    line = who("[1,12]<stderr>:  File \"train.py\", line 3, in <module>", "")
    assert (line.rank, line.body) == (12, '  File "train.py", line 3, in <module>')


def test_an_nccl_debug_line_behind_the_tag_names_its_host_and_rank() -> None:
    line = who(TAGGED_NCCL, "")
    assert (line.node, line.rank) == ("nccl-tests-efa-worker-1", 8)
    assert line.body.startswith(" NCCL INFO comm 0x7f9ef0000dc0 rank 8")


def test_nccl_tests_rows_behind_the_tag_are_read() -> None:
    text = KARPENTER.read_text(encoding="utf-8")
    rows = [f for f in parse_lines(NcclTests, text, source="nccl_tests.log", node="") if f.KIND == "bench.collective_size"]
    sizes = {int(ln.split(":", 1)[1].split()[0]) for ln in text.splitlines() if ln.split(":", 1)[-1].strip()[:1].isdigit()}
    assert {r.size for r in rows} == sizes     # every size of the table (before: none, the rows were not seen)
    assert max(r.busbw for r in rows) == 2.03 and rows[-1].size >= 2**30   # flat at ~2 GB/s up to the largest size


def test_a_bracket_that_is_no_tag_is_kept() -> None:
    line = "[1,2] are the ranks that failed"
    assert who(line, "").body == line
