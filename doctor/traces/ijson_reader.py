"""The fallback trace reader: ijson (C backend) for a trace whose events lie beyond what the window reader holds.

Kineto writes metadata first, so doctor/traces/reader.py reaches traceEvents within its window; a writer that
puts more than 64 MiB of other keys first is read here, metadata from ijson's event stream, events with
ijson.items. Installed with doctor[traces].
"""
from __future__ import annotations

from typing import Any, BinaryIO, Iterator

from doctor.probing.stream import StreamRefused
from doctor.traces.reader import ReadState, TraceMeta, apply_meta, rank_from_name


def open_with_ijson(stream: BinaryIO, label: str, state: ReadState) -> tuple[TraceMeta, Iterator[dict[str, Any]], ReadState]:
    """traceEvents behind more than the window can hold: stream it with ijson (installed with doctor[traces])."""
    try:
        import ijson
    except ImportError:
        raise StreamRefused("traceEvents lies beyond 64 MiB of other keys; install ijson (doctor[traces]) "
                            "to read this layout") from None
    stream.seek(0)
    meta = _ijson_meta(ijson, stream)
    if meta.rank < 0:
        meta.rank = rank_from_name(label)
    stream.seek(0)

    def events() -> Iterator[dict[str, Any]]:
        try:
            for event in ijson.items(stream, "traceEvents.item", use_float=True):
                state.events += 1
                if isinstance(event, dict):
                    yield event
        except (ijson.JSONError, EOFError, OSError) as exc:
            state.error = f"JSON damaged after {state.events} events ({str(exc).splitlines()[0][:80]})"

    return meta, events(), state


def _ijson_meta(ijson: Any, stream: BinaryIO) -> TraceMeta:
    """The wanted top-level values, built from ijson's event stream until the traceEvents key."""
    meta = TraceMeta()
    wanted = {"distributedInfo", "deviceProperties", "host_name", "hostname"}
    builder, key = None, ""
    try:
        for prefix, event, value in ijson.parse(stream, use_float=True):
            if prefix == "" and event == "map_key":
                if builder is not None:
                    apply_meta(meta, key, builder.value)
                    builder = None
                if value == "traceEvents":
                    break
                key = value
                builder = ijson.ObjectBuilder() if value in wanted else None
            elif builder is not None:
                builder.event(event, value)
    except (ijson.JSONError, EOFError, OSError):
        pass
    return meta
