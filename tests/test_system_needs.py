"""The table of what tests may need from the machine (tests/needs.py) covers what the lab uses and what CI installs."""
from __future__ import annotations

import re

import needs
from conftest import REPO

from lab.tools import TOOLS


def test_every_lab_tool_need_has_a_skip_reason() -> None:
    assert {need for tool in TOOLS for need in tool.needs} <= set(needs.REQUIREMENTS)


def test_every_tool_ci_installs_has_a_skip_reason() -> None:
    script = (REPO / ".ci" / "run").read_text()
    installed = set(re.findall(r"([\w-]+):[\w.-]+", script.split("for pair in", 1)[1].split("; do", 1)[0]))
    assert installed and installed - {"iptables", "nft"} <= set(needs.REQUIREMENTS), installed - set(needs.REQUIREMENTS)


def test_a_missing_tool_gives_its_reason(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert needs.REQUIREMENTS["tmux"]() == "`tmux` is not installed (apt-get install tmux)"
    assert needs.REQUIREMENTS["firewall"]() == "neither iptables nor nft is installed (apt-get install iptables)"
