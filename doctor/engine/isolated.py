"""Run a function in a long-lived child process, so that a crash there (a segfault in a C extension)
ends the call with an error instead of ending this process.

The durable backend uses it: durable_rules' C engine can segfault (issue 15), and a segfault cannot be
caught in the process it happens in. One child serves many calls (the differential test sends hundreds).
A call whose child dies is sent once more to a fresh child: durable's crashes come from C heap state that
earlier sessions left behind (valgrind reports invalid reads), so a fresh process answers the same session
correctly; a call that kills two children in a row raises ChildCrashed. `crashes` counts every death.
`max_calls` replaces the child after that many calls: durable's C state goes bad after some hundreds of
rulesets in one process (the differential test's crash came at about the 390th), so a child never gets there. Arguments and results cross a multiprocessing Pipe:
they are this program's own objects (rules and facts already parsed), never bytes from an upload.
"""
from __future__ import annotations

import multiprocessing
import threading
from multiprocessing.connection import Connection
from typing import Any, Callable

from doctor.errors import DoctorError


class ChildCrashed(DoctorError):
    """The child process died during a call (signal or exit): exit 2, one line."""

    exit_code = 2


def _serve(conn: Connection) -> None:
    """The child's loop: (function, args) in, ("ok", result) or ("error", exception) out, until None."""
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        function, args = request
        try:
            conn.send(("ok", function(*args)))
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it there
            conn.send(("error", exc))


class Worker:
    """One child process at a time; `call` is serialised by a lock."""

    def __init__(self, what: str, max_calls: int = 0) -> None:
        self.what = what
        self.max_calls = max_calls       # > 0: a fresh child after that many calls (0: one child for ever)
        self._calls = 0
        self._lock = threading.Lock()
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self.crashes = 0                 # children that died during a call, since this Worker was made

    def call(self, function: Callable[..., Any], *args: Any, retries: int = 1) -> Any:
        with self._lock:
            for attempt in range(retries + 1):
                conn = self._start()
                try:
                    conn.send((function, args))
                    status, value = conn.recv()
                    break
                except (EOFError, OSError, BrokenPipeError):
                    self.crashes += 1
                    line = self._crash_line()
                    if attempt == retries:
                        raise ChildCrashed(line) from None
            if status == "error":
                raise value
            return value

    def _start(self) -> Connection:
        if self.max_calls and self._calls >= self.max_calls:
            self._stop()
        self._calls += 1
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        self._calls = 1
        context = multiprocessing.get_context("spawn")   # no inherited threads or locks, on every platform
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child,), name=f"doctor-{self.what}", daemon=True)
        process.start()
        child.close()
        self._process, self._conn = process, parent
        return parent

    def _crash_line(self) -> str:
        process, self._process, self._conn = self._process, None, None
        code = None
        if process is not None:
            process.join(timeout=5)
            code = process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return (f"the {self.what} engine crashed ({how}) in its child process, twice in a row; "
                f"this run's findings are lost: use --engine native")

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        """Ask the child to end and wait for it; the next call starts a fresh one."""
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        if self._process is not None:
            self._process.join(timeout=5)
        self._process, self._conn = None, None
