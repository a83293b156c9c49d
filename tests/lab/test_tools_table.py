"""lab/tools.py's table is well formed and every tool scenario was recorded with a matching answer."""
from __future__ import annotations

from pathlib import Path

import yaml

from lab.tools import TOOLS, by_name

REPO = Path(__file__).resolve().parents[2]
INCIDENTS = REPO / "fixtures" / "incidents"
CAUSES = set(yaml.safe_load((REPO / "rules" / "causes.yaml").read_text())["causes"]) | {"healthy"}


def test_names_unique_causes_known() -> None:
    assert len(by_name()) == len(TOOLS)
    for tool in TOOLS:
        assert tool.name == tool.name.lower() and tool.name.endswith("-netns"), tool.name
        assert tool.cause in CAUSES and tool.needs, tool.name
        assert (tool.cause == "healthy") == (tool.symptom == "none"), tool.name


def test_every_tool_scenario_was_recorded() -> None:
    for tool in TOOLS:
        folder = INCIDENTS / tool.name
        answer = yaml.safe_load((INCIDENTS / f"{tool.name}.expected.yaml").read_text())
        assert answer["cause"] == tool.cause and answer["produced_by"] == f"python -m lab.tools --only {tool.name}"
        command = (folder / "command.txt").read_text()
        assert "/tmp/" not in command and str(REPO) not in command, "recorded commands name paths of the recorder"
        assert any(p.suffix in (".log", ".txt", ".json") and p.name != "command.txt" for p in folder.iterdir())
        assert ((folder / "expectations.yaml").is_file()) == bool(tool.expectations)
