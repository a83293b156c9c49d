"""Read an untrusted pickle without running it: builtin containers and scalars only.

pickle.load on an uploaded file runs whatever the file names (a reduce of os.system is one line of pickle).
RestrictedUnpickler resolves no global at all except a tiny allow-list of builtin container types (older
protocols spell sets that way), refuses persistent ids, and reads at most MAX_BYTES. Dicts, lists, tuples,
strings, bytes, numbers, booleans and None need no global, so a torch.cuda.memory snapshot loads completely,
and anything that would import or call code stops at the first such opcode, before it is run.
"""
from __future__ import annotations

import io
import pickle
from typing import Any, BinaryIO

ALLOWED: frozenset[tuple[str, str]] = frozenset({("builtins", "set"), ("builtins", "frozenset")})
MAX_BYTES = 512 * 2**20


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


def safe_load(stream: BinaryIO, cap: int = MAX_BYTES) -> Any:
    """The object in a pickle stream, built from builtin types only. Raises PickleRefused."""
    try:
        data = _read_capped(stream, cap)
        return RestrictedUnpickler(io.BytesIO(data)).load()
    except PickleRefused:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, MemoryError,
            OverflowError, AttributeError, OSError) as exc:
        detail = str(exc).splitlines()[0][:80] if str(exc) else ""
        raise PickleRefused(f"not a readable pickle ({exc.__class__.__name__}: {detail})") from None
