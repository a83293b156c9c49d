"""Hostile input, round two (issue 15): each finding of the red-team pass as a test on the real command line.

The contract: any upload ends in bounded time and memory with exit 0/1/2, one line per refused input, the rest of
the report kept; nothing written outside a temporary folder; nothing from an input reaches the terminal as a
control sequence. Every run here is capped (hostile_run.run_capped: a time limit and RLIMIT_AS), so a hang or a
memory blow-up fails fast. Hostile files are built in tmp_path, never committed.
"""
from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

from hostile_run import refused_but_kept, run_capped

FAILURE = ("[rank1]: torch.distributed.DistNetworkError: The client socket has timed out after 10000ms "
           "while trying to connect to (10.0.0.1, 29500).\n")


def _log(folder: Path) -> Path:
    path = folder / "rank1.log"
    path.write_text("step 1 loss 0.5\n" + FAILURE)
    return path


def _analyze_keeps_the_log(hostile: Path, tmp_path: Path, timeout: float = 60) -> dict:
    """analyze --json on the hostile file and a good log: exit 1, the log's diagnosis kept, the hostile file listed."""
    done = run_capped("analyze", "--json", str(hostile), str(_log(tmp_path)), tmp=tmp_path / "tmp", timeout=timeout)
    out = refused_but_kept(done, tmp_path / "tmp")
    assert done.returncode == 1, done.stderr[-2000:]
    report = json.loads(out)
    assert report["diagnoses"][0]["cause"] == "port_blocked"
    return {Path(i["path"]).name: i for i in report["inputs"]}


def _snapshot_pickle(snapshot: dict, placeholder: str = "", raw: bytes = b"") -> bytes:
    """A protocol-2 pickle of snapshot; the string `placeholder` inside it replaced by raw pickle opcodes."""
    data = pickle.dumps(snapshot, protocol=2)
    if placeholder:
        encoded = b"X" + len(placeholder).to_bytes(4, "little") + placeholder.encode()
        assert data.count(encoded) == 1
        data = data.replace(encoded, raw)
    return data


# 1. a crash: a block address that is a 300,000-deep nested tuple (C stack overflow when hashed)

def test_deeply_nested_value_in_a_snapshot_is_refused_not_a_segfault(tmp_path: Path) -> None:
    snapshot = {"segments": [{"device": 0, "total_size": 100, "blocks": [
        {"address": "ADDRESS", "size": 10, "state": "active_allocated"}]}],
        "device_traces": [[{"action": "alloc", "addr": 1, "size": 10}]]}
    deep = b"K\x01" + b"\x85" * 300_000                  # BININT1 1, then TUPLE1 wrapping it 300,000 times
    path = tmp_path / "snapshot.pickle.gz"
    path.write_bytes(gzip.compress(_snapshot_pickle(snapshot, "ADDRESS", deep)))
    assert len(path.read_bytes()) < 2000
    seen = _analyze_keeps_the_log(path, tmp_path)
    assert seen["snapshot.pickle.gz"]["status"] == "ok"     # read; the address that is not an address is ignored
