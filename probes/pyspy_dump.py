"""`py-spy dump --pid PID` of each rank, as text or --json: where every process's main thread stands.

Recognised by content: text starting "Process <pid>: " with "Thread <id> (...)" blocks; JSON, a list of threads
with "pid", "thread_id" and "frames". The rank comes from the file name's last number (pyspy_rank3.txt), as
for Flight Recorder dumps. Sample (text, py-spy 0.4):
    Process 27805: /usr/bin/python -c from multiprocessing.spawn import spawn_main; ...
    Python v3.11.7 (/usr/bin/python3.11)

    Thread 27805 (idle): "MainThread"
        all_reduce (torch/distributed/distributed_c10d.py:3252)
        sleep (lab/fr_scenarios.py:72)
"""
from __future__ import annotations

import json
import re

from doctor.facts.flight_recorder import ProcessStack
from doctor.probing.contract import DocumentProbe, ParseContext
from probes.flight_recorder import rank_from_name

_PROCESS = re.compile(r"^Process (\d+): ", re.M)
_THREAD = re.compile(r'^Thread (0x[0-9A-Fa-f]+|\d+) \(([^)]*)\)(?:: "([^"]*)")?\s*$')
_MACHINERY = ("torch/", "threading.py", "multiprocessing/", "<string>", "c10d_logger.py", "importlib")
MAX_FRAMES = 64


def frame_of(line: str) -> tuple[str, str, int] | None:
    """An indented `name (file:line)` frame line, split from the right in linear time (a regex with two
    wildcards took 0.5 s on a 4 KiB line of ' (' and ':')."""
    body = line.rstrip()
    if not body.endswith(")") or not line[:1].isspace():
        return None
    cut = body.rfind(" (")
    if cut < 0:
        return None
    name, (filename, _, number) = body[:cut].strip(), body[cut + 2:-1].rpartition(":")
    if not name or not filename or not number.isdigit():
        return None
    return name, filename, int(number)


def _collective(frames: list[tuple[str, str, int]]) -> str:
    for name, filename, _ in frames:
        if filename.endswith("distributed_c10d.py"):
            return name.split(".")[-1]
    return ""


def _where(frames: list[tuple[str, str, int]]) -> str:
    for name, filename, line in frames:
        if not any(m in filename for m in _MACHINERY):
            return f"{name} ({filename}:{line})"
    return ""


def _emit(ctx: ParseContext, pid: int, frames: list[tuple[str, str, int]], line_no: int, text: str) -> None:
    frames = frames[:MAX_FRAMES]
    collective = _collective(frames)
    where = _where(frames)
    state = f"in {collective}" if collective else "outside any collective"
    ctx.emit(ProcessStack, line_no, f"{text.strip()} -> {state}, at {where or '?'}", rank=rank_from_name(ctx.source),
             pid=pid, collective=collective, where=where,
             frames="\n".join(f"{n} ({f}:{ln})" for n, f, ln in frames))


class PySpyText(DocumentProbe):
    name = "pyspy_text"
    yields = ("stack.process",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        return head.startswith("Process ") and _PROCESS.match(head) is not None and "\nThread " in head[:65536]

    def parse(self, text: str, ctx: ParseContext) -> None:
        pid_m = _PROCESS.match(text)
        pid = int(pid_m.group(1)) if pid_m else -1
        threads: list[tuple[int, str, str, list[tuple[str, str, int]]]] = []
        for number, line in enumerate(text.splitlines(), 1):
            if m := _THREAD.match(line):
                threads.append((number, line, m.group(3) or "", []))
            elif threads and (frame := frame_of(line)):
                threads[-1][3].append(frame)
        main = next((t for t in threads if t[2] == "MainThread" or t[1].startswith(f"Thread {pid} ")), None)
        if main is not None:
            _emit(ctx, pid, main[3], main[0], main[1])


class PySpyJson(DocumentProbe):
    name = "pyspy_json"
    yields = ("stack.process",)

    @classmethod
    def sniff(cls, head: str) -> bool:
        start = head.lstrip()[:2000]
        return start.startswith("[") and '"thread_id"' in start and '"frames"' in start and '"pid"' in start

    def parse(self, text: str, ctx: ParseContext) -> None:
        try:
            threads = json.loads(text)
        except (ValueError, RecursionError):
            return
        if not isinstance(threads, list):
            return
        for thread in threads:
            if not isinstance(thread, dict) or thread.get("os_thread_id") != thread.get("pid") and \
                    thread.get("thread_name") != "MainThread":
                continue
            raw = thread.get("frames")
            frames = [(str(f.get("name", "?"))[:200], str(f.get("filename", "?"))[:300],
                       f["line"] if isinstance(f.get("line"), int) else 0)
                      for f in (raw if isinstance(raw, list) else []) if isinstance(f, dict)]
            pid = thread.get("pid") if isinstance(thread.get("pid"), int) else -1
            _emit(ctx, pid, frames, 0, f"py-spy --json: pid {pid} main thread")
            return
