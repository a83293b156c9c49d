"""remote_shell: an MPI daemon the remote shell could not find, in the wordings of the users-list threads (batch NS:
users list 2008/04/5431, 2009/07/9791, 2011/01/15403; each a remote non-interactive PATH without Open MPI)."""
from __future__ import annotations

import pytest

from doctor.probing.contract import parse_lines
from probes.remote_shell import RemoteShell


@pytest.mark.parametrize("line", [
    "bash: orted: command not found\n",                      # users list 2009/07/9791
    "  orted: command not found\n",                          # users list 2008/04/5431, indented as posted
    "orted: Command not found.\n",                           # tcsh's wording
    "bash: line 1: prted: command not found\n",
])
def test_a_daemon_the_remote_shell_could_not_find(line: str) -> None:
    (err,) = [f for f in parse_lines(RemoteShell, line) if f.KIND == "launch.remote_error"]
    assert err.reason == "not_found"


@pytest.mark.parametrize("line", [
    "python: command not found\n",                           # no host prefix: may be this machine's own shell
    "the orted: command was not found in the docs\n",
])
def test_other_not_found_lines_are_not_a_remote_daemon(line: str) -> None:
    assert not [f for f in parse_lines(RemoteShell, line) if f.KIND == "launch.remote_error"]
