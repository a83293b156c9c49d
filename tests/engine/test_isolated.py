"""The child-process boundary around durable_rules: a real segfault in the child is an error here, not a death."""
from __future__ import annotations

import ctypes
import os
import signal

import pytest

from doctor.engine.isolated import ChildCrashed, Worker


def segfault() -> None:
    ctypes.string_at(0)              # a real SIGSEGV inside the child


def double(x: int) -> int:
    return 2 * x


def pid() -> int:
    return os.getpid()


def fail() -> None:
    raise RuntimeError("durable rule action failed: boom")


def test_a_segfault_in_the_child_is_one_error_and_the_next_call_works() -> None:
    worker = Worker("durable")
    try:
        with pytest.raises(ChildCrashed, match=rf"crashed \(signal {int(signal.SIGSEGV)}\) in its child process"):
            worker.call(segfault)
        assert worker.crashes == 2                       # the call and its one retry in a fresh child
        assert worker.call(double, 21) == 42
    finally:
        worker.close()


def test_one_child_serves_many_calls_and_none_runs_here() -> None:
    worker = Worker("durable")
    try:
        pids = {worker.call(pid) for _ in range(5)}
        assert len(pids) == 1 and os.getpid() not in pids
    finally:
        worker.close()


def test_an_exception_in_the_child_is_raised_here_without_a_restart() -> None:
    worker = Worker("durable")
    try:
        first = worker.call(pid)
        with pytest.raises(RuntimeError, match="boom"):
            worker.call(fail)
        assert worker.call(pid) == first and worker.crashes == 0
    finally:
        worker.close()


def test_analyze_with_durable_crashing_is_one_line_and_exit_2(tmp_path) -> None:
    """`doctor analyze --engine durable` whose durable session segfaults (twice): one line on stderr, exit 2."""
    import subprocess
    import sys

    from doctor.engine.durable import available
    from doctor_cli import REPO
    if reason := available():
        pytest.skip(f"durable engine unavailable: {reason}")
    (tmp_path / "crasher.py").write_text("import ctypes\n\ndef crash(*args):\n    ctypes.string_at(0)\n")
    script = ("import sys, crasher, doctor.engine.durable as d\n"
              "d.session_hits = crasher.crash\n"
              "from doctor.cli import main\n"
              "sys.exit(main(['analyze', '--engine', 'durable', 'fixtures/logs/nccl-shm-no-space.log']))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"doctor: the durable engine crashed (signal {int(signal.SIGSEGV)}) in its child process, twice in a row; "
        "this run's findings are lost: use --engine native"]


def test_a_child_is_replaced_after_max_calls() -> None:
    worker = Worker("durable", max_calls=3)
    try:
        pids = [worker.call(pid) for _ in range(7)]
        assert pids[0] == pids[1] == pids[2] != pids[3] == pids[4] == pids[5] != pids[6]
        assert worker.crashes == 0
    finally:
        worker.close()
