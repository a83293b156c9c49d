"""Drive a program in a real terminal: a private tmux server, send-keys in, capture-pane out."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from typing import Callable

TMUX = shutil.which("tmux")


class TmuxTerminal:
    """One detached tmux session on its own server socket (never the user's default server)."""

    def __init__(self, command: str, cwd: str, size: tuple[int, int] = (120, 40)) -> None:
        self.socket = f"doctor-test-{os.getpid()}-{time.monotonic_ns()}"
        self.command, self.cwd, self.size = command, cwd, size

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert TMUX, "tmux is not installed"
        # os.environ, not the inherited C environment: readline (loaded by pytest) exports COLUMNS/LINES of the
        # test's own terminal there, and the program in the pane would believe them over its real size
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        return subprocess.run([TMUX, "-L", self.socket, "-f", os.devnull, *args], capture_output=True, text=True,
                              timeout=10, env=env)

    def start(self) -> float:
        """Start the session; returns the monotonic time just before tmux was asked to."""
        width, height = (str(n) for n in self.size)
        started = time.monotonic()
        # one tmux call: the size is fixed (no client will ever attach) and a crash leaves its screen readable
        self._tmux("new-session", "-d", "-s", "doctor", "-x", width, "-y", height, "-c", self.cwd, self.command,
                   ";", "set-option", "-g", "default-size", f"{width}x{height}",
                   ";", "set-option", "-g", "-w", "window-size", "manual",
                   ";", "set-option", "-t", "doctor", "remain-on-exit", "on")
        return started

    def screen(self) -> str:
        return self._tmux("capture-pane", "-t", "doctor", "-p").stdout

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "doctor", *keys)

    def wait_for(self, seen: Callable[[str], bool], timeout_s: float = 15, poll_s: float = 0.01) -> tuple[float, str]:
        """Poll the screen until seen(text); returns (monotonic time it was seen, text). Raises with the screen."""
        deadline = time.monotonic() + timeout_s
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if seen(text):
                return time.monotonic(), text
            time.sleep(poll_s)
        raise AssertionError(f"timed out after {timeout_s} s; the screen shows:\n{text}")

    def pane_dead(self) -> bool:
        return self._tmux("display-message", "-p", "-t", "doctor", "#{pane_dead}").stdout.strip() == "1"

    def close(self) -> None:
        self._tmux("kill-server")

    def __enter__(self) -> "TmuxTerminal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
