"""`doctor analyze -` (or /dev/stdin) reads a piped log as a stream, capped; a terminal on stdin is refused in one
line (it would wait for typing), and standard input cannot be named twice."""
from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from hostile_run import REPO, refused_but_kept, run_capped

LOG = REPO / "fixtures/logs/nccl-2.19-two-node-ib-hca-set-no-device.log"


def test_a_piped_log_is_analysed_like_the_file(tmp_path: Path) -> None:
    from_file = run_capped("analyze", "--json", str(LOG), tmp=tmp_path / "a")
    piped = run_capped("analyze", "--json", "-", tmp=tmp_path / "b", stdin=LOG.read_bytes())
    assert piped.returncode == from_file.returncode == 1
    causes = [d["cause"] for d in __import__("json").loads(piped.stdout)["diagnoses"]]
    assert causes == [d["cause"] for d in __import__("json").loads(from_file.stdout)["diagnoses"]]
    assert b'"source": "stdin"' in piped.stdout, "evidence should be cited as from stdin"
    refused_but_kept(piped, tmp_path / "b")


def test_dev_stdin_is_the_same_as_dash(tmp_path: Path) -> None:
    done = run_capped("analyze", "--json", "/dev/stdin", tmp=tmp_path / "t", stdin=LOG.read_bytes())
    assert done.returncode == 1, done.stderr
    assert b'"source": "stdin"' in done.stdout


def test_a_stream_past_the_cap_is_cut_and_said(tmp_path: Path) -> None:
    text = LOG.read_bytes() + b"x" * 300_000
    done = run_capped("analyze", "-", tmp=tmp_path / "t", stdin=text, env={"DOCTOR_MAX_STDIN_BYTES": "200000"})
    out = refused_but_kept(done, tmp_path / "t")
    assert done.returncode == 1, done.stderr
    assert "more than 200000 bytes piped in" in out + done.stderr.decode()


def test_stdin_named_twice_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run_capped("analyze", "-", "-", tmp=tmp_path / "t", stdin=b"hello\n")
    assert done.returncode == 2
    assert done.stderr.decode().strip().splitlines() == [
        "doctor: -: standard input was already named once; it can be read only once"]


def test_a_terminal_on_stdin_is_refused_not_waited_for(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "doctor", "analyze", "-"], stdin=follower,
                              capture_output=True, timeout=60, cwd=REPO,
                              env=dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp_path)))
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 2
    assert done.stderr.decode().strip().startswith("doctor: -: standard input is a terminal")
    assert list(tmp_path.iterdir()) == []
