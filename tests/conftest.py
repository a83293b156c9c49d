"""Shared test helpers: the repository root, the shared folder, a CLI runner in a subprocess, and the table of
system tools and capabilities some tests need.

A test that needs a tool or a capability says so with ``@pytest.mark.needs("tmux")`` (``@pytest.mark.netns`` implies
``needs("netns")``); where one is missing the test is skipped before it starts, with the reason from NEEDS, so
the README's test command passes on a fresh machine. `.ci/run` installs every tool and so runs every test.
"""
from __future__ import annotations

import os
import shutil
from functools import cache
from typing import Callable

import pytest

from doctor_cli import REPO, SHARED, run_doctor  # noqa: F401  (re-exported for tests)


def _tool(name: str) -> Callable[[], bool]:
    return lambda: shutil.which(name) is not None


@cache
def _netns_reason() -> str | None:
    from lab.netns import netns_unavailable_reason   # makes and deletes one namespace: asked once per run
    return netns_unavailable_reason()


# need -> (is it here?, why a test is skipped without it). Debian package names as `.ci/run` installs them.
NEEDS: dict[str, tuple[Callable[[], bool], str]] = {
    "root": (lambda: os.geteuid() == 0, "needs root (euid != 0)"),
    "netns": (lambda: _netns_reason() is None, "no network namespaces"),
    "ip": (_tool("ip"), "`ip` is not installed (apt-get install iproute2)"),
    "tc": (_tool("tc"), "`tc` is not installed (apt-get install iproute2)"),
    "firewall": (lambda: bool(shutil.which("iptables") or shutil.which("nft")),
                 "neither iptables nor nft is installed (apt-get install iptables)"),
    "iptables": (_tool("iptables"), "iptables is not installed (apt-get install iptables)"),
    "tmux": (_tool("tmux"), "tmux is not installed (apt-get install tmux)"),
    "rsvg-convert": (_tool("rsvg-convert"), "rsvg-convert is not installed (apt-get install librsvg2-bin)"),
    "iperf3": (_tool("iperf3"), "iperf3 is not installed (apt-get install iperf3)"),
    "mpirun": (_tool("mpirun"), "mpirun is not installed (apt-get install openmpi-bin)"),
    "ompi_info": (_tool("ompi_info"), "ompi_info is not installed (apt-get install openmpi-bin)"),
    "mpicc": (_tool("mpicc"), "mpicc is not installed (apt-get install libopenmpi-dev)"),
    "ssh": (_tool("ssh"), "ssh is not installed (apt-get install openssh-client)"),
}


def missing_need(needs: tuple[str, ...]) -> str | None:
    """The skip reason of the first need that is not met here, or None when all are."""
    for need in needs:
        present, reason = NEEDS[need]
        if not present():
            return f"{reason}: {_netns_reason()}" if need == "netns" else reason
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"needs(*names): skip unless every one is here; names: {', '.join(NEEDS)}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    needs = tuple(name for mark in item.iter_markers("needs") for name in mark.args)
    unknown = [n for n in needs if n not in NEEDS]
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: unknown need {unknown[0]!r}; known: {', '.join(NEEDS)}")
    if item.get_closest_marker("netns"):
        needs = ("root", "ip", "netns") + needs
    if (reason := missing_need(needs)) is not None:
        pytest.skip(reason)


@pytest.fixture
def doctor_cli():
    return run_doctor
