"""Open MPI in the wordings of held-out batch MZ (issue 12): a remote daemon of another release, and the openib
locked-memory help text as Open MPI 1.6 wraps it. Real text: the cases' inputs (Open MPI users list, horovod#848)."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.limits import MemlockLines
from probes.openmpi import OpenMpi

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _remote(text: str) -> list[tuple[str, str]]:
    return [(f.host, f.reason) for f in parse_lines(OpenMpi, text) if f.KIND == "launch.remote_error"]


def test_a_remote_daemon_rejecting_mpiruns_option_is_another_release() -> None:
    kraken = (CASES / "version-mismatch-ompi-users-2016-29074-orted-unknown-option-noninteractive-path" / "input"
              / "mpirun_from_triops.log").read_text()
    assert ("aim-kraken", "daemon_version") in _remote(kraken)
    horovod = (CASES / "version-mismatch-horovod-848-unknown-option-hnp-topo-sig" / "input" / "mpirun.log").read_text()
    assert _remote(horovod) == [("", "daemon_version")]


def test_mpiruns_own_unknown_option_is_the_users_typo() -> None:
    """ompi#4557's line: mpirun itself refusing an option it was given names no second release."""
    assert _remote('/path/ompi-v3.1.x/bin/mpirun: Error: unknown option "-np"\n') == []
    assert _remote('mpirun: Error: unknown option "--hnp-topo-sig"\n') == []


def test_the_openib_locked_memory_text_in_open_mpi_16s_wrapping() -> None:
    text = (CASES / "memlock-ompi-users-2015-26107-sge-openib-locked-memory" / "input" / "mpirun.log").read_text()
    facts = parse_lines(MemlockLines, text)
    assert [(f.name, f.kb, f.warned) for f in facts] == [("memlock", 65536, True)]


def test_1_6s_daemonize_option_is_a_daemon_option() -> None:
    """held-out batch NH: users list 2010/13644, a node whose orted came from a foreign Open MPI install."""
    text = (CASES / "version-mismatch-ompi-users-2010-13644-daemonize-foreign-openmpi-on-one-node" / "input")
    lines = "".join(p.read_text() for p in sorted(text.iterdir()))
    assert ("birg-desktop-10", "daemon_version") in _remote(lines)
