"""Python multiprocessing's shared-memory objects found gone: a segment opened by name, or one the job's own
resource tracker came to remove, no longer in /dev/shm.

Python names its POSIX shared-memory segments '/psm_<hex>' (multiprocessing.shared_memory, used by vLLM's
ShmRingBuffer, Ray and DataLoader-like queues) and its semaphores '/mp-<random>' (SemLock: the locks of every
multiprocessing Queue), all living in /dev/shm. Two wordings say such an object was gone:

- opening a segment another process made: "FileNotFoundError: [Errno 2] No such file or directory: '/psm_dee74a05'"
  (SharedMemory(name=...)): the attach side, like PyTorch's "unable to open shared memory object", so call
  shm_attach, a narrowing sign (a race or bug, the open-file limit, /dev/shm cleaned under the job);
- the job's resource tracker removing the job's own semaphores at exit: "resource_tracker: '/mp-h2w_nzng': [Errno 2]
  No such file or directory": the job made them and never removed them, so something else deleted them (systemd-
  logind's RemoveIPC when the user's last session ended, a /dev/shm cleaner): call shm_unlink, NCCL's own "unlink
  shared memory ... failed" reading (SHM005). The tracker's '/psm_' segments are left out: two processes tracking one
  segment make the same warning (CPython's known double-unlink, bpo-39959), no sign of the OS.

Sample input:
    FileNotFoundError: [Errno 2] No such file or directory: '/psm_dee74a05'
    /usr/lib/python3.12/multiprocessing/resource_tracker.py:267: UserWarning: resource_tracker: '/mp-h2w_nzng': [Errno 2] No such file or directory
"""
from __future__ import annotations

import re

from doctor.facts.nccl import CallFailed
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

# (call, pattern): the first that matches a line names the call that found the object gone
_GONE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("shm_unlink", lazy_compile(r"resource_tracker: '/mp-\w+': \[Errno 2\] No such file or directory")),
    ("shm_attach", lazy_compile(r"FileNotFoundError: \[Errno 2\] No such file or directory: '/psm_\w+'")),
)


class PythonShmObjects(LineProbe):
    name = "python_shm"
    yields = ("sys.call_failed",)
    triggers = ("'/psm_", "'/mp-")

    def feed(self, line_no: int, line: str) -> None:
        for call, pattern in _GONE:
            if pattern.search(line):
                self.ctx.emit(CallFailed, line_no, line, call=call, errno="ENOENT", resource="/dev/shm")
                return
