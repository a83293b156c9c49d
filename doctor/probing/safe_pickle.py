"""Read an untrusted pickle without running it: builtin containers and scalars only.

pickle.load on an uploaded file runs whatever the file names (a reduce of os.system is one line of pickle).
RestrictedUnpickler resolves no global at all except a tiny allow-list of builtin container types (older
protocols spell sets that way), refuses persistent ids, and reads at most MAX_BYTES. Dicts, lists, tuples,
strings, bytes, numbers, booleans and None need no global, so a torch.cuda.memory snapshot loads completely,
and anything that would import or call code stops at the first such opcode, before it is run.
"""
from __future__ import annotations

import io
import os
import pickle
from contextlib import contextmanager
from typing import Any, BinaryIO, Iterator

ALLOWED: frozenset[tuple[str, str]] = frozenset({("builtins", "set"), ("builtins", "frozenset")})
MAX_BYTES = 512 * 2**20
# Objects, not bytes: one byte of pickle ('}') makes a 64-byte dict, so 48 KB of gzip held 50 M of them (3.6 GB).
# Real snapshots grow about 10x when loaded (8-11x on fixtures/snapshots); the address space the load may add is
# capped at EXPANSION x the pickle's bytes + BASE_BUDGET, so a pickle of empty containers stops with MemoryError.
EXPANSION = 24
BASE_BUDGET = 256 * 2**20


class PickleRefused(Exception):
    """The pickle wants something other than builtin data; the message says what, in one line."""


class RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in ALLOWED:
            return {"set": set, "frozenset": frozenset}[name]
        raise PickleRefused(f"the pickle asks for {module}.{name}; only builtin containers and scalars are read, "
                            "nothing was run")

    def persistent_load(self, pid: Any) -> Any:
        raise PickleRefused("the pickle refers to external objects (persistent ids); nothing was run")


def _read_capped(stream: BinaryIO, cap: int) -> bytes:
    """The whole stream, refusing more than cap bytes. Held in memory so that no length a pickle declares can make
    the unpickler allocate more than the file holds."""
    parts, total = [], 0
    while chunk := stream.read(1 << 20):
        total += len(chunk)
        if total > cap:
            raise PickleRefused(f"larger than {cap // 2**20} MiB; record fewer entries (max_entries) or trim it")
        parts.append(chunk)
    return b"".join(parts)


# A pickle this small is unpickled here, without a fork (a Flight Recorder dump of one rank is a few KB, and a
# thousand ranks' dumps forked a thousand children): each level of nesting costs at least one opcode byte, so it
# cannot nest deeply enough to overflow the C stack while being built.
IN_PROCESS_BYTES = 16 * 1024


def safe_load(stream: BinaryIO, cap: int = MAX_BYTES) -> Any:
    """The object in a pickle stream, built from builtin types only. Raises PickleRefused.

    Where fork exists the pickle is unpickled in a child process that hands back its own re-pickling: a value the
    C unpickler cannot build without overflowing the C stack (a dict keyed by a 300,000-deep tuple is hashed while
    it is built) kills the child, not doctor, and the Python pickler refuses anything nested deeper than the
    recursion limit, so nothing handed back can overflow the stack later either."""
    try:
        data = _read_capped(stream, cap)
    except (EOFError, OSError, ValueError) as exc:      # a truncated or damaged gzip stream
        raise PickleRefused(f"not a readable pickle ({exc.__class__.__name__})") from None
    if not hasattr(os, "fork") or len(data) <= IN_PROCESS_BYTES:
        return _load(data)
    payload = _in_child(data)
    return _load(payload)


def _in_child(data: bytes) -> bytes:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:                                          # the child: unpickle, re-pickle, hand back, exit
        os.close(read_end)
        try:
            answer = b"\x00" + pickle.dumps(_load(data), protocol=pickle.HIGHEST_PROTOCOL)
        except PickleRefused as exc:
            answer = b"\x01" + str(exc).encode()
        except RecursionError:
            answer = b"\x01" + b"nested too deeply to be a memory snapshot; not read"
        except BaseException as exc:  # noqa: BLE001 - the child never returns into doctor
            answer = b"\x01" + f"not a readable pickle ({exc.__class__.__name__})".encode()
        with os.fdopen(write_end, "wb") as out:
            out.write(answer)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as source:
        answer = source.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not answer:
        raise PickleRefused("its reader crashed (a value nested too deeply to build); nothing of it was used")
    if answer[:1] == b"\x01":
        raise PickleRefused(answer[1:].decode("utf-8", "replace"))
    return answer[1:]


def _load(data: bytes) -> Any:
    try:
        with _address_space(EXPANSION * len(data) + BASE_BUDGET):
            return RestrictedUnpickler(io.BytesIO(data)).load()
    except PickleRefused:
        raise
    except MemoryError:
        raise PickleRefused(f"it would take more than {EXPANSION} times its size in memory (a pickle of that many "
                            "objects is not a memory snapshot); not read") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, MemoryError,
            OverflowError, AttributeError, OSError) as exc:
        detail = str(exc).splitlines()[0][:80] if str(exc) else ""
        raise PickleRefused(f"not a readable pickle ({exc.__class__.__name__}: {detail})") from None


@contextmanager
def _address_space(budget: int) -> Iterator[None]:
    """RLIMIT_AS lowered, while the block runs, to what this process maps now plus budget (Linux; elsewhere no-op)."""
    try:
        import resource
        with open("/proc/self/statm") as fh:
            mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        yield
        return
    limit = mapped + budget
    if soft != resource.RLIM_INFINITY and soft <= limit:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
