"""The everyday verbs stay light: `doctor --help`, `analyze`, `rules` and `explain` never import
torch (2-3 s, 750 MB), pynvml or textual. Each verb runs in a fresh interpreter as `python -m doctor`
would run it, and then lists the heavy modules that ended up in sys.modules."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from doctor_cli import REPO

HEAVY = ("torch", "pynvml", "textual")
WRAPPER = """
import json, runpy, sys
sys.argv = ["doctor", *json.loads(sys.argv[1])]
try:
    runpy.run_module("doctor", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
print("HEAVY=" + json.dumps(heavy), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["analyze", "fixtures/logs/nccl-shm-no-space.log"],
                                  ["analyze", "--json", "fixtures/logs/nccl-shm-no-space.log"], ["rules"],
                                  ["explain", "NET001"]], ids=" ".join)
def test_verb_imports_nothing_heavy(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", WRAPPER.format(heavy=set(HEAVY)), json.dumps(argv)], cwd=REPO,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    marker = [line for line in done.stderr.splitlines() if line.startswith("HEAVY=")]
    assert marker, done.stderr
    assert json.loads(marker[-1][len("HEAVY="):]) == []
    assert done.stdout.strip(), "the verb printed nothing: it did not run"
