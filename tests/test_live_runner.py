"""The live runner with real subprocesses: missing tools, hung tools (whole process group killed), failures."""
from __future__ import annotations

import time
from pathlib import Path

from doctor.probing.contract import Failed, Ok, Skipped
from doctor.probing.live import LiveProbe, reader, run_probe


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline:
                found.append(int(entry.name))
    return found


def test_missing_tool_is_skipped_with_the_reason() -> None:
    result = run_probe(LiveProbe("x", ("doctor-no-such-tool-here", "-q")))
    assert isinstance(result.outcome, Skipped)
    assert result.reason == "doctor-no-such-tool-here not found on PATH"
    assert result.status_fact("n1").status == "skipped"


def test_hung_tool_and_its_children_are_killed_at_the_timeout(tmp_path: Path) -> None:
    hang = _script(tmp_path, "hang", "sleep 31337 &\nsleep 31338\n")
    started = time.monotonic()
    result = run_probe(LiveProbe("hang", (hang,), timeout_s=30), timeout_cap=1.0)
    elapsed = time.monotonic() - started
    assert isinstance(result.outcome, Failed)
    assert result.reason.startswith("timed out after 1s")
    assert elapsed < 4, f"the runner waited {elapsed:.1f}s"
    deadline = time.monotonic() + 3
    while _processes_with("sleep 3133") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _processes_with("sleep 3133"), "the hung tool's process group survived"


def test_failing_tool_reports_exit_code_and_last_error_line(tmp_path: Path) -> None:
    tool = _script(tmp_path, "fails", "echo partial output\necho 'first' >&2\necho 'Failed to initialize NVML' >&2\nexit 9")
    result = run_probe(LiveProbe("fails", (tool,)))
    assert isinstance(result.outcome, Failed)
    assert result.reason == "exit 9: Failed to initialize NVML"
    assert result.stdout.strip() == "partial output" and result.exit == 9


def test_fallback_is_used_when_the_first_tool_is_missing(tmp_path: Path) -> None:
    tool = _script(tmp_path, "second", "echo from-second")
    result = run_probe(LiveProbe("fb", ("doctor-no-such-tool-here",), fallbacks=((tool,),)))
    assert isinstance(result.outcome, Ok) and result.stdout.strip() == "from-second"


def test_output_that_means_nothing_here_is_skipped(tmp_path: Path) -> None:
    tool = _script(tmp_path, "ibv", "echo 'No IB devices found'")
    result = run_probe(LiveProbe("ibv", (tool,), skip_when=("No IB devices found",)))
    assert isinstance(result.outcome, Skipped) and result.reason == "No IB devices found"


def test_reader_that_finds_nothing_is_skipped(monkeypatch) -> None:
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    result = run_probe(LiveProbe("reach", reader("probes.reachability:read_live")))
    assert isinstance(result.outcome, Skipped), result.stderr
    assert "MASTER_ADDR" in result.reason


def test_children_a_tool_leaves_behind_are_ended_with_it(tmp_path: Path) -> None:
    tool = _script(tmp_path, "leaves", "sleep 31339 &\necho done")
    result = run_probe(LiveProbe("leaves", (tool,)))
    assert isinstance(result.outcome, Ok) and result.stdout.strip() == "done"
    deadline = time.monotonic() + 3
    while _processes_with("sleep 31339") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _processes_with("sleep 31339")


def test_a_reader_used_as_fallback_can_still_say_nothing_here(monkeypatch) -> None:
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    probe = LiveProbe("reach", ("doctor-no-such-tool-here",), fallbacks=(reader("probes.reachability:read_live"),))
    result = run_probe(probe)
    assert isinstance(result.outcome, Skipped) and "MASTER_ADDR" in result.reason
