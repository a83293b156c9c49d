"""The table of system tools tests may need (tests/conftest.py NEEDS) covers what the lab uses and what CI installs."""
from __future__ import annotations

import re

from conftest import NEEDS, REPO, missing_need

from lab.tools import TOOLS


def test_every_lab_tool_need_has_a_skip_reason() -> None:
    assert {need for tool in TOOLS for need in tool.needs} <= set(NEEDS)


def test_every_tool_ci_installs_has_a_skip_reason() -> None:
    script = (REPO / ".ci" / "run").read_text()
    installed = set(re.findall(r"([\w-]+):[\w.-]+", script.split("for pair in", 1)[1].split("; do", 1)[0]))
    assert installed and installed - {"nft"} <= set(NEEDS), installed - set(NEEDS)


def test_a_missing_tool_gives_its_reason(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert missing_need(("tmux",)) == "tmux is not installed (apt-get install tmux)"
    assert missing_need(("firewall", "tmux")) == "neither iptables nor nft is installed (apt-get install iptables)"
    assert missing_need(()) is None
