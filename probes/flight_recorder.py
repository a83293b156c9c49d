"""PyTorch Flight Recorder dumps: one file per rank, a pickle (or its JSON form), read without pickle.load.

Written by TORCH_NCCL_DUMP_ON_TIMEOUT / TORCH_FR_DUMP_TEMP_FILE (`<prefix><rank>`, default
/tmp/nccl_trace_rank_<rank>), by torch._C._distributed_c10d._dump_fr_trace() and _dump_fr_trace_json().
Recognised by content: a pickle or JSON object whose first keys are the recorder's ("version", then "pg_config"
or "entries"); the rank comes from the file name's last number, as fr_trace takes it.
The format, as torch's reader (torch/distributed/flight_recorder) and the recorded dumps show it:
    {"version": "2.10", "pg_config": {name: {"name", "desc", "ranks": "[0, 1]"}}, "pg_status": {pg_id:
     {"last_enqueued_collective", "last_started_collective", "last_completed_collective"}}, "comm_lib_version",
     "entries": [{"record_id", "pg_id", "process_group": (name, desc), "collective_seq_id", "p2p_seq_id",
                  "op_id", "profiling_name": "nccl:all_reduce", "input_sizes", "output_sizes", "input_dtypes",
                  "output_dtypes", "state": scheduled|started|completed, "retired", "is_p2p", "timeout_ms",
                  "time_created_ns", "time_discovered_started_ns", "time_discovered_completed_ns",
                  "frames": [{"name", "filename", "line"}]}]}
Older versions (PyTorch 2.2-2.4, "1.x" to "2.3") lack some keys: "seq_id" instead of collective_seq_id, no
p2p_seq_id, is_p2p, dtypes, process_group (pg_id only), pg_status or timeout_ms; the reader takes whichever is
there. Versions from "1.0" to "2.x" are read; another major version is refused in one line.
"""
from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import Any, BinaryIO

from doctor.facts.flight_recorder import FrDump, FrGroupRank
from doctor.probing.contract import ParseContext
from doctor.probing.safe_pickle import PickleRefused, safe_load
from doctor.probing.stream import StreamProbe, StreamRefused

MAX_ENTRIES = 100_000          # torch's default buffer is 2,000; a dump claiming more is not a dump
MAX_DIMS = 16
MAX_DIM = 1 << 48              # a larger declared dimension is not a tensor anyone allocated
MAX_FRAMES = 64
MAX_RANKS_TEXT = 512         # a longer rank list is kept as its count only
PICKLE_KEYS = (b"version", b"pg_config", b"entries")
_RANK_IN_NAME = re.compile(r"(?<!\d)(\d+)(?:\.[A-Za-z]+)*$")     # starts only at a run of digits: linear
_RANK_WORD = re.compile(r"rank[_\-.]?(\d+)", re.I)
_P2P = ("send", "recv")


def rank_from_name(source: str) -> int:
    """The number after "rank" in the file name (nccl_trace_rank_3, rank11_node2.pkl), else its last number
    (host-a_7.json): fr_trace takes the last number only and misreads names that put the host after the rank."""
    name = PurePath(source).name
    name = name[-128:]                  # a file name; bounded so the digit search stays linear
    m = _RANK_WORD.search(name) or _RANK_IN_NAME.search(name)
    return int(m.group(1)) if m else -1


def _sniff_pickle(head: bytes) -> bool:
    return (len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5 and b"version" in head[:64]
            and (b"pg_config" in head[:4096] or b"entries" in head[:4096]))


def _sniff_json(head: bytes) -> bool:
    """_dump_fr_trace_json writes its keys sorted: comm_lib_version, entries, ..., version last."""
    text = head[:4096].lstrip()
    return text[:1] == b"{" and re.match(rb'\{\s*"(version|comm_lib_version|entries)"\s*:', text) is not None and (
        b'"pg_config"' in text or b'"profiling_name"' in text)


class FlightRecorderDump(StreamProbe):
    name = "flight_recorder"
    yields = ("fr.dump", "fr.group_rank")

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        return _sniff_pickle(head) or _sniff_json(head)

    def read(self, stream: BinaryIO, ctx: ParseContext) -> None:
        dump = load_dump(stream)
        emit_dump(ctx, dump, rank_from_name(ctx.source))


def load_dump(stream: BinaryIO) -> dict[str, Any]:
    """The dump as builtin data, checked for the recorder's shape. Raises StreamRefused with a one-line reason."""
    head = stream.peek(1)[:1] if hasattr(stream, "peek") else b""
    try:
        if head == b"{":
            data = json.loads(stream.read(64 << 20))
        else:
            data = safe_load(stream)
    except PickleRefused as exc:
        raise StreamRefused(f"Flight Recorder dump refused: {exc}") from None
    except RecursionError:
        raise StreamRefused("Flight Recorder dump refused: nested too deeply") from None
    except ValueError as exc:
        raise StreamRefused(f"Flight Recorder dump is not valid JSON ({exc.__class__.__name__})") from None
    return check_shape(data)


def check_shape(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("version"), str):
        raise StreamRefused("not a Flight Recorder dump: no 'version' string at the top")
    major = data["version"].split(".")[0]
    if major not in ("1", "2"):
        raise StreamRefused(f"Flight Recorder dump version {data['version'][:20]!r} is not one doctor reads (1.x-2.x)")
    entries = data.get("entries", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise StreamRefused("Flight Recorder dump refused: 'entries' is not a list of records")
    if len(entries) > MAX_ENTRIES:
        raise StreamRefused(f"Flight Recorder dump refused: {len(entries)} entries (more than {MAX_ENTRIES})")
    for key in ("pg_config", "pg_status"):
        if not isinstance(data.get(key, {}), dict):
            raise StreamRefused(f"Flight Recorder dump refused: '{key}' is not a mapping")
    return data


def _int(value: Any, default: int = -1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _sizes(value: Any) -> str:
    """[[16], [4, 4]] as a short string; anything but lists of ints is refused."""
    if not isinstance(value, list) or len(value) > 4096:
        raise StreamRefused("Flight Recorder dump refused: input/output sizes are not a list of shapes")
    shapes = []
    for shape in value:
        if not isinstance(shape, list) or len(shape) > MAX_DIMS or not all(0 <= _int(d) < MAX_DIM for d in shape):
            raise StreamRefused("Flight Recorder dump refused: a shape is not a short list of sizes")
        shapes.append("[" + ",".join(map(str, shape)) + "]")
    return "[" + ",".join(shapes) + "]"


def _dtypes(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise StreamRefused("Flight Recorder dump refused: dtypes are not a list of names")
    return ",".join(d[:16] for d in value)


def op_name(entry: dict[str, Any]) -> str:
    """nccl:all_reduce -> all_reduce; gloo:send -> send."""
    name = entry.get("profiling_name")
    if not isinstance(name, str):
        raise StreamRefused("Flight Recorder dump refused: an entry has no profiling_name string")
    return name.split(":", 1)[-1][:60].replace("|", "/")


def state_of(entry: dict[str, Any]) -> str:
    """completed, started or scheduled. Gloo leaves state at 'scheduled' and retires the entry when it finishes."""
    state = entry.get("state")
    if state == "completed" or entry.get("retired") is True:
        return "completed"
    if state == "started":
        return "started"
    return "scheduled"


def group_of(entry: dict[str, Any]) -> tuple[str, str]:
    pg = entry.get("process_group")
    if isinstance(pg, (list, tuple)) and len(pg) == 2 and all(isinstance(p, str) for p in pg):
        return pg[0][:80], pg[1][:80]
    return str(_int(entry.get("pg_id"), 0)), ""


def is_p2p(entry: dict[str, Any], op: str) -> bool:
    flag = entry.get("is_p2p")
    return flag if isinstance(flag, bool) else op.split(" ")[0] in _P2P


def seq_of(entry: dict[str, Any], p2p: bool) -> int:
    if p2p:
        return _int(entry.get("p2p_seq_id"), _int(entry.get("seq_id")))
    return _int(entry.get("collective_seq_id"), _int(entry.get("seq_id")))


def encode(entry: dict[str, Any]) -> tuple[str, bool, int, str]:
    """One entry as the compact op line of FrGroupRank.ops, whether it is p2p, its seq id and state."""
    op = op_name(entry)
    p2p = is_p2p(entry, op)
    seq = seq_of(entry, p2p)
    state = state_of(entry)
    dtypes = _dtypes(entry.get("input_dtypes"))
    line = "|".join(("p" if p2p else "c", str(seq), op, _sizes(entry.get("input_sizes", [])),
                     _sizes(entry.get("output_sizes", [])), dtypes, state, str(_int(entry.get("timeout_ms")))))
    return line, p2p, seq, state


def format_stack(frames: Any) -> str:
    if not isinstance(frames, list):
        return ""
    lines = []
    for frame in frames[:MAX_FRAMES]:
        if isinstance(frame, dict):
            lines.append(f"{str(frame.get('filename', '?'))[:200]}:{_int(frame.get('line'), 0)} in "
                         f"{str(frame.get('name', '?'))[:80]}")
    return "\n".join(lines)


def _ranks(pg_config: dict[str, Any], name: str, desc: str) -> tuple[str, int]:
    """The group's ranks as pg_config writes them ("[0, 1]"; "" when longer than MAX_RANKS_TEXT) and their count."""
    for key, cfg in pg_config.items():
        if isinstance(cfg, dict) and (key == name or cfg.get("desc") == desc and desc):
            ranks = cfg.get("ranks")
            if isinstance(ranks, str):
                return (ranks if len(ranks) <= MAX_RANKS_TEXT else ""), _count(ranks)
    return "", -1


def _count(ranks: str) -> int:
    return ranks.count(",") + 1 if ranks.strip("[] ") else 0


def world_of(pg_config: dict[str, Any]) -> int:
    """Ranks of the default group: the pg_config entry named '0' or described default_pg, else the largest."""
    best = -1
    for key, cfg in pg_config.items():
        if isinstance(cfg, dict) and isinstance(cfg.get("ranks"), str):
            if key == "0" or cfg.get("desc") == "default_pg":
                return _count(cfg["ranks"])
            best = max(best, _count(cfg["ranks"]))
    return best


def emit_dump(ctx: ParseContext, dump: dict[str, Any], rank: int) -> None:
    entries = dump.get("entries", [])
    pg_config = dump.get("pg_config", {})
    groups: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
    for index, entry in enumerate(entries):
        groups.setdefault(group_of(entry), []).append((index, entry))
    ctx.emit(FrDump, 0, f"Flight Recorder dump version {dump['version'][:20]}, {len(entries)} entries", rank=rank,
             version=dump["version"][:20], entries=len(entries), groups=len(groups),
             first_record=_int(entries[0].get("record_id")) if entries else -1, world=world_of(pg_config),
             stacks=any(e.get("frames") for e in entries[:1]))
    status = dump.get("pg_status", {})
    for (name, desc), items in groups.items():
        _emit_group(ctx, rank, name, desc, items, pg_config, status)


def _emit_group(ctx: ParseContext, rank: int, name: str, desc: str, items: list[tuple[int, dict[str, Any]]],
                pg_config: dict[str, Any], status: dict[str, Any]) -> None:
    ops: list[str] = []
    last_done = last_started = pending = (-1, "", -1)
    first_open = -1                # index of the first entry that did not complete: its frames are the stack
    coll_seqs: list[int] = []
    for index, entry in items:
        line, p2p, seq, state = encode(entry)
        ops.append(line)
        label = ("p2p " if p2p else "") + line.split("|")[2]
        if not p2p:
            coll_seqs.append(seq)
        if state == "completed" and not p2p:
            last_done = (seq, label, index)
        elif state == "started" or _gloo(entry):
            last_started = (seq, label, index)
        elif pending[0] < 0:
            pending = (seq, label, index)
        if state != "completed" and first_open < 0:
            first_open = index
    stack = format_stack(dict(items)[first_open].get("frames")) if first_open >= 0 else ""
    st = status.get(str(_int(items[0][1].get("pg_id"), -2))) or status.get(name) or {}   # keyed by pg_id
    st = st if isinstance(st, dict) else {}
    ranks_text, size = _ranks(pg_config, name, desc)
    text = (f"rank {rank} process group {name} ({desc or 'no description'}): last completed #{last_done[0]} "
            f"{last_done[1]}, last started #{last_started[0]} {last_started[1]}, first not started #{pending[0]} "
            f"{pending[1]}")
    ctx.emit(FrGroupRank, (first_open if first_open >= 0 else items[-1][0]) + 1, text, rank=rank, pg=name, pg_desc=desc,
             group_ranks=ranks_text, group_size=size,
             last_completed=last_done[0], last_completed_op=last_done[1],
             last_started=last_started[0], last_started_op=last_started[1],
             first_pending=pending[0], first_pending_op=pending[1],
             status_enqueued=_int(st.get("last_enqueued_collective")),
             status_started=_int(st.get("last_started_collective")),
             status_completed=_int(st.get("last_completed_collective")),
             first_seq=min(coll_seqs, default=-1), last_seq=max(coll_seqs, default=-1), ops=tuple(ops), stack=stack)


def _gloo(entry: dict[str, Any]) -> bool:
    """Gloo runs an op when it is enqueued and never marks it started: an unretired gloo entry is in progress."""
    name = entry.get("profiling_name")
    return isinstance(name, str) and name.startswith("gloo:")
