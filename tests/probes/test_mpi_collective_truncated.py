"""MPI's error handler aborting a collective with MPI_ERR_TRUNCATE: the ranks' calls do not match (issue 12, held-out
batches NF and NH, Open MPI users list). Real text: 2007/4133 (a broadcast the workers never matched), 2011/15256
(MPI_Bcast with counts and datatypes that differ across ranks), 2015/26610 (MPI_Alltoallv receive counts larger than
what was sent). A receive's truncation (MPI_Recv, or MPI_Wait completing an MPI_Irecv) is read the same since the
thirty-second stop: a message larger than the buffer posted for it, sender and receiver disagreeing on what they
exchange. Of the four such threads in the case base three were that (users 2009/9422, devel 2006/1190, users
2010/12871) and one a development snapshot's bug (users 2008/6316, ranked second now)."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.probing.contract import parse_lines
from probes.collectives import Collectives

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _mismatches(text: str) -> list[str]:
    return [f.op for f in parse_lines(Collectives, text) if f.KIND == "collective.mismatch"]


@pytest.mark.parametrize("case, op", [
    ("collective-desync-ompi-users-2007-4133-unmatched-bcast-truncate", "MPI_Bcast"),
    ("collective-desync-ompi-users-2011-15256-bcast-count-datatype-mismatch-truncate", "MPI_Bcast"),
    ("collective-desync-ompi-users-2015-26610-alltoallv-recvcounts-exceed-sent-truncate", "MPI_Alltoallv"),
])
def test_a_collective_truncated_is_a_mismatch_of_the_ranks_calls(case: str, op: str) -> None:
    text = "".join(p.read_text() for p in sorted((CASES / case / "input").iterdir()))
    assert set(_mismatches(text)) == {op}


@pytest.mark.parametrize("case, op", [
    ("collective-desync-ompi-users-2009-9422-any-source-any-tag-recv-truncate", "MPI_Recv"),
    # Boost.MPI's exception puts the call and the error on one line: "what():  MPI_Recv: MPI_ERR_TRUNCATE: ..."
    ("collective-desync-ompi-users-2010-12871-boost-mpi-recv-buffer-too-small-9-slaves", "MPI_Recv"),
])
def test_a_receive_truncated_is_a_mismatch_of_the_ranks_messages(case: str, op: str) -> None:
    text = "".join(p.read_text() for p in sorted((CASES / case / "input").iterdir()))
    assert set(_mismatches(text)) == {op}


def test_a_call_that_cannot_truncate_a_message_is_not_read() -> None:
    """Only receives and collectives receive into a buffer: MPI_File_read's truncation is no disagreement of ranks."""
    text = ("[n1:17116] *** An error occurred in MPI_File_read\n[n1:17116] *** on communicator MPI_COMM_WORLD\n"
            "[n1:17116] *** MPI_ERR_TRUNCATE: message truncated\n")
    assert _mismatches(text) == []
