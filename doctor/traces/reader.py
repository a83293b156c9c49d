"""Stream a Kineto/chrome trace: its metadata from the head, then its events one at a time (ijson, C backend).

A trace is one JSON object: {"schemaVersion", "deviceProperties", "distributedInfo", ..., "traceEvents": [...]}.
Kineto writes the metadata before the events, so the head alone gives rank, backend and GPUs; the events are
then read with ijson.items, which holds one event at a time: a 2 GB trace costs a few MB.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterator

from doctor.probing.stream import StreamRefused

HEAD_BYTES = 1 << 20
_MARKERS = (b'"traceEvents"', b'"schemaVersion"', b'"deviceProperties"')
_RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)


def looks_like_trace(head: bytes) -> bool:
    """A JSON object whose head names traceEvents, schemaVersion or deviceProperties."""
    text = head.lstrip()
    return text.startswith(b"{") and any(marker in head for marker in _MARKERS)


@dataclass
class TraceMeta:
    rank: int = -1
    world_size: int = -1
    backend: str = ""
    host: str = ""
    gpu_names: list[str] = field(default_factory=list)


def read_meta(stream: BinaryIO, label: str) -> TraceMeta:
    """Metadata from the first MiB (stops at traceEvents). The rank falls back to 'rank<N>' in the file name."""
    import ijson
    head = _read_upto(stream, HEAD_BYTES)
    meta = TraceMeta()
    try:
        for key, value in ijson.kvitems(_until_events(head), ""):
            _apply(meta, key, value)
    except (ijson.JSONError, ValueError, TypeError):
        pass   # a head cut mid-value: keep what was read
    if meta.rank < 0:
        m = _RANK_IN_NAME.search(label.rsplit("/", 1)[-1])
        meta.rank = int(m.group(1)) if m else -1
    return meta


def _read_upto(stream: BinaryIO, size: int) -> bytes:
    """Up to size bytes; a truncated gzip stream yields what came before the damage."""
    parts: list[bytes] = []
    got = 0
    try:
        while got < size:
            chunk = stream.read(min(65536, size - got))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
    except (EOFError, OSError):
        pass
    return b"".join(parts)


def _until_events(head: bytes) -> io.BytesIO:
    """The head up to the traceEvents key, closed as an object, so kvitems never builds the event list."""
    cut = head.find(b'"traceEvents"')
    body = head[:cut] if cut >= 0 else head
    body = body.rstrip().rstrip(b",")
    return io.BytesIO(body + b"}")


def _apply(meta: TraceMeta, key: str, value: Any) -> None:
    if key == "distributedInfo" and isinstance(value, dict):
        meta.rank = _int(value.get("rank"), meta.rank)
        meta.world_size = _int(value.get("world_size"), meta.world_size)
        meta.backend = str(value.get("backend", ""))
    elif key == "deviceProperties" and isinstance(value, list):
        meta.gpu_names = [str(d.get("name", "")) for d in value if isinstance(d, dict)]
    elif key in ("host_name", "hostname"):
        meta.host = str(value)


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@dataclass
class ReadState:
    events: int = 0
    error: str = ""        # why reading stopped early (truncated or damaged JSON), "" when it reached the end


def iter_events(stream: BinaryIO, state: ReadState) -> Iterator[dict[str, Any]]:
    """Every object in traceEvents, in file order. A damaged tail ends the stream and is noted in state.error."""
    import ijson
    try:
        for event in ijson.items(stream, "traceEvents.item", use_float=True):
            state.events += 1
            if isinstance(event, dict):
                yield event
    except (ijson.JSONError, ijson.IncompleteJSONError) as exc:
        state.error = f"JSON damaged after {state.events} events ({str(exc).splitlines()[0][:80]})"
    except (EOFError, OSError) as exc:      # a truncated gzip stream
        state.error = f"file truncated after {state.events} events ({exc.__class__.__name__})"


def require_ijson() -> None:
    try:
        import ijson  # noqa: F401
    except ImportError:
        raise StreamRefused("reading profiler traces needs ijson: pip install 'doctor[traces]'") from None
