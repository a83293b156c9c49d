"""Shared memory in the words of MPI libraries, and `df -i` (issue 12, held-out batch NF, Open MPI users list).

- Open MPI's "It appears as if there is not enough space for <file> (the shared-memory backing file)" gives the bytes
  free on its "Space Available:" field; its sm BTL's "unable to create shared memory BTL coordinating structure" and
  an older MPI's "Unable to allocate shared memory for intra-node messaging" say the same without a figure.
- `df -hi` lists the same filesystems counting inodes: "tmpfs 16M 3 16M 1% /dev/shm" is 16 M inodes of a 63 GB
  /dev/shm (users list 2014/25572), no 16 MB /dev/shm (NODE001 had read it so)."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.dev_shm import ShmLines

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _facts(case: str, name: str) -> list:
    return parse_lines(ShmLines, (CASES / case / "input" / name).read_text(), node="n")


def test_open_mpi_names_the_bytes_free_for_its_backing_file() -> None:
    short = [f for f in _facts("shm-ompi-devel-2016-19126-tmpdir-xdg-runtime-dir-small-tmpfs", "train.log")
             if f.KIND == "sys.shm_short"]
    # the sm BTL's own line is wrapped by the mail after "BTL" there: the help text's field is what is read
    assert [(f.program, f.refused, f.available) for f in short] == [("mpi", True, 25968640)]


def test_the_older_wordings_without_a_figure() -> None:
    for case in ("shm-ompi-users-2015-26906-tmp-full-sm-coordinating-structure-hpl",
                 "shm-ompi-users-2008-7256-dev-shm-filled-by-stale-files"):
        short = [f for f in _facts(case, "train.log") if f.KIND == "sys.shm_short"]
        assert short and {(f.program, f.available) for f in short} == {("mpi", -1)}


def test_df_inode_rows_are_no_size() -> None:
    sizes = [f for f in _facts("shm-ompi-users-2014-25572-tmp-150m-tmpfs-win-allocate-shared", "df.txt")
             if f.KIND == "sys.shm"]
    assert [f.size for f in sizes] == [63 * 1024**3]
    inodes_only = ("Filesystem     Inodes IUsed IFree IUse% Mounted on\n"
                   "tmpfs             16M     3   16M    1% /dev/shm\n")
    assert parse_lines(ShmLines, inodes_only, node="n") == []
