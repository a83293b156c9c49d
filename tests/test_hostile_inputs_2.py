"""Hostile input, round two (issue 15): each finding of the red-team pass as a test on the real command line.

The contract: any upload ends in bounded time and memory with exit 0/1/2, one line per refused input, the rest of
the report kept; nothing written outside a temporary folder; nothing from an input reaches the terminal as a
control sequence. Every run here is capped (hostile_run.run_capped: a time limit and RLIMIT_AS), so a hang or a
memory blow-up fails fast. Hostile files are built in tmp_path, never committed.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import tarfile
from pathlib import Path

from hostile_run import refused_but_kept, run_capped

# A bare store connect timeout is read two ways (NET001 port_blocked, NET030 master_addr_wrong), nearly tied in the
# fitted weights (6 and 5 cases of the base where both fire): these tests check that the line was read, not the tie.
STORE_TIMEOUT = ("port_blocked", "master_addr_wrong")
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
    assert report["diagnoses"][0]["cause"] in STORE_TIMEOUT
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
    assert seen["snapshot.pickle.gz"]["status"] == "skipped"
    assert "nested too deeply" in seen["snapshot.pickle.gz"]["reason"]


# 6. one bad file must not drop the whole report (it was exit 4, "internal error")

def _trace(events_json: str) -> str:
    return ('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}, '
            '"traceEvents": [' + events_json + ']}')


BAD_FILES = {
    "nan.json": _trace('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": NaN, "dur": 5}'),
    "huge.json": _trace('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1e400}'),
    "digits.json": _trace('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": '
                          + "9" * 5000 + "}"),
    "nested.json": '{"start_time": 1, "version": 1, "nccl_version": "2.18", "results": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "nested_ip.json": '[{"ifname": "eth0", "addr_info": ' + "[" * 100_000 + "]" * 100_000 + "}]",
}


def test_one_bad_file_is_refused_and_the_rest_kept(tmp_path: Path) -> None:
    for name, text in BAD_FILES.items():
        (tmp_path / name).write_text(text)
    snapshot = {"segments": [{"device": float("inf"), "total_size": 100, "blocks": []}]}
    (tmp_path / "inf.pickle").write_bytes(_snapshot_pickle(snapshot))
    done = run_capped("analyze", "--json", *(str(tmp_path / n) for n in [*BAD_FILES, "inf.pickle"]),
                      str(_log(tmp_path)), tmp=tmp_path / "tmp")
    report = json.loads(refused_but_kept(done, tmp_path / "tmp"))
    assert done.returncode == 1 and report["diagnoses"][0]["cause"] in STORE_TIMEOUT
    seen = {Path(i["path"]).name: i for i in report["inputs"]}
    for name in BAD_FILES:
        assert seen[name]["status"] == "skipped" and "not read" in seen[name]["reason"], seen[name]
    assert seen["inf.pickle"]["status"] == "ok"             # the device that is not a number is taken as 0


def test_folder_a_thousand_levels_deep(tmp_path: Path) -> None:
    folder = tmp_path / "upload"
    deep = folder
    for _ in range(1000):                                  # Path.mkdir(parents=True) recurses once per level
        deep = deep / "d"
        deep.mkdir(parents=True) if deep.parent == folder else os.mkdir(deep)
    (deep / "rank1.log").write_text(FAILURE)
    _log(folder)
    try:
        done = run_capped("analyze", "--json", str(folder), tmp=tmp_path / "tmp")
    finally:                                               # pytest's rmtree of old temp folders recurses per level
        (deep / "rank1.log").unlink()
        while deep != folder:
            deep.rmdir()
            deep = deep.parent
    report = json.loads(refused_but_kept(done, tmp_path / "tmp"))
    assert done.returncode == 1 and report["diagnoses"][0]["cause"] in STORE_TIMEOUT
    skipped = [i for i in report["inputs"] if i["status"] == "skipped"]
    assert len(skipped) == 1 and "levels of folders" in skipped[0]["reason"]


# 7. a folder has no file-count cap; a policy has no size cap

def test_folder_file_count_is_capped(tmp_path: Path) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    _log(folder)
    for i in range(3_000):                               # tiny files, each a (non-matching) log
        (folder / f"z{i:05}.log").write_bytes(b"x\n")
    done = run_capped("analyze", "--json", str(folder), tmp=tmp_path / "tmp", timeout=90,
                      env={"DOCTOR_MAX_FILES": "1000"})      # the cap is 10,000; lowered to keep the test short
    report = json.loads(refused_but_kept(done, tmp_path / "tmp"))
    assert done.returncode == 1 and report["diagnoses"][0]["cause"] in STORE_TIMEOUT
    skipped = [i for i in report["inputs"] if i["status"] == "skipped"]
    assert len(skipped) == 1 and "files in the upload" in skipped[0]["reason"], skipped[:3]
    assert len(report["inputs"]) == 1001


def _check_policy(tmp_path: Path, text: bytes, timeout: float = 30) -> str:
    policy = tmp_path / "policy.yaml"
    policy.write_bytes(text)
    done = run_capped("check", "--policy", str(policy), "--json", str(_log(tmp_path)), tmp=tmp_path / "tmp",
                      timeout=timeout, memory=2 * 2**30)
    lines = done.stderr.decode().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("doctor: "), (done.returncode, lines[-3:])
    return lines[0]


def test_policy_over_the_size_cap_is_one_line(tmp_path: Path) -> None:
    line = _check_policy(tmp_path, b"shm:\n  min: 1\n" + (b"# " + b"x" * 100 + b"\n") * (20 * 2**20 // 103), timeout=15)
    assert "larger than" in line


def test_policy_with_yaml_aliases_is_refused(tmp_path: Path) -> None:
    laughs = ['&a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']     # 9^9 strings once expanded
    for prev, name in zip("abcdefgh", "bcdefghi"):
        laughs.append(f"&{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = ("shm:\n  min: [" + ", ".join(laughs) + "]\n").encode()
    assert len(text) < 500
    assert "alias" in _check_policy(tmp_path, text)


def test_policy_nested_50000_deep_is_one_line(tmp_path: Path) -> None:
    assert "nested" in _check_policy(tmp_path, b"shm: " + b"[" * 50_000 + b"]" * 50_000 + b"\n")


# 4. `doctor collect -o b.tar.gz` wrote through a planted symlink b.tar.gz.part

def test_collect_does_not_write_through_a_planted_part_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "b.tar.gz.part").symlink_to(victim)
    done = run_capped("collect", "--only", "environment", "-o", str(out / "b.tar.gz"), tmp=tmp_path / "tmp")
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == b"precious\n"
    assert (out / "b.tar.gz").is_file() and not (out / "b.tar.gz").is_symlink()
    assert (out / "b.tar.gz.part").is_symlink()             # the planted link is left alone, not followed
    assert sorted(p.name for p in out.iterdir()) == ["b.tar.gz", "b.tar.gz.part"]


# 3. terminal injection: nothing from an input reaches the terminal as a control sequence

TITLE, CLEAR = "\x1b]0;pwned\x07", "\x1b[2J"


def _injected_upload(folder: Path) -> list[Path]:
    folder.mkdir()
    log = folder / f"rank1{TITLE}.log"
    log.write_text(f"step 1 {CLEAR}\n" + FAILURE.replace("timed out", f"timed out{TITLE}{CLEAR}"))
    odd = folder / "bad\x1b[2Jname\n.bin"
    odd.write_bytes(bytes(range(256)) * 40)              # binary: listed as skipped, under its odd name
    archive = folder / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = FAILURE.replace("10.0.0.1", f"10.0.0.1{CLEAR}").encode()
        info = tarfile.TarInfo(f"logs/rank2{TITLE}\n.log")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return [log, odd, archive]


def test_analyze_prints_no_control_sequence_from_an_input(tmp_path: Path) -> None:
    paths = _injected_upload(tmp_path / "upload")
    done = run_capped("analyze", *map(str, paths), tmp=tmp_path / "tmp", env={"COLUMNS": "300"})
    assert done.returncode == 1, done.stderr
    for stream in (done.stdout, done.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream, stream[:3000]
    assert b"\\x1b]0;pwned\\x07" in done.stdout                 # shown, escaped


def test_error_line_prints_no_control_sequence(tmp_path: Path) -> None:
    done = run_capped("analyze", str(tmp_path / f"missing{CLEAR}.log"), tmp=tmp_path / "tmp")
    assert done.returncode == 2 and b"\x1b" not in done.stderr and b"missing\\x1b[2J.log" in done.stderr


def test_tui_shows_no_control_sequence_from_an_input(tmp_path: Path) -> None:
    import asyncio

    from textual.widgets import OptionList

    from doctor.tui.app import DoctorApp
    from doctor.tui.screens.diagnosis import DiagnosisScreen

    paths = _injected_upload(tmp_path / "upload")

    async def body() -> list[str]:
        app = DoctorApp([str(p) for p in paths])
        async with app.run_test(size=(160, 50)) as pilot:
            for _ in range(2):
                await app.workers.wait_for_complete()
                await pilot.pause()
            await pilot.press("1")                       # init timeout
            for _ in range(2):
                await app.workers.wait_for_complete()
                await pilot.pause()
            assert isinstance(app.screen, DiagnosisScreen)
            await pilot.press("enter")
            await pilot.pause()
            evidence = app.screen.query_one("#evidence", OptionList)
            shown = [str(evidence.get_option_at_index(i).prompt) for i in range(evidence.option_count)]
            shown.append(app.export_screenshot())
            return shown
    shown = asyncio.run(body())
    assert any("pwned" in text for text in shown[:-1]), shown
    for text in shown:
        assert "\x1b" not in text and "\x07" not in text


# 2. snapshot pickles: objects capped, not bytes; shared references; segments x blocks; devices x segments

def test_pickle_of_twenty_million_empty_dicts_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    import resource
    bomb = b"\x80\x02]" + (b"(" + b"}" * 1000 + b"e") * 20_000 + b"."   # 20 M empty dicts from 20 MB of pickle
    path = tmp_path / "bomb.pickle.gz"
    path.write_bytes(gzip.compress(bomb, 9))
    assert path.stat().st_size < 100_000
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    seen = _analyze_keeps_the_log(path, tmp_path)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert seen["bomb.pickle.gz"]["status"] == "skipped" and "memory" in seen["bomb.pickle.gz"]["reason"]
    assert peak_kib < 1_200_000 or peak_kib == before, f"peak RSS {peak_kib} KiB"   # building them all: 1.5 GB


def test_snapshot_of_shared_references_and_shared_blocks_is_bounded(tmp_path: Path) -> None:
    tree: object = "torch/optim/adam.py"
    for _ in range(60):                                   # 2^60 leaves once printed
        tree = [tree, tree]
    blocks = [{"size": 1, "state": "active_allocated", "frames": [{"filename": tree, "name": tree}]}] * 20_000
    segments = [{"device": d % 3000, "total_size": 1, "blocks": blocks} for d in range(20_000)]
    path = tmp_path / "shared.pickle"
    path.write_bytes(pickle.dumps({"segments": segments}, protocol=4))
    assert path.stat().st_size < 1_000_000
    seen = _analyze_keeps_the_log(path, tmp_path, timeout=60)
    assert seen["shared.pickle"]["status"] == "skipped"


def test_dict_keyed_by_a_deep_tuple_is_refused_not_a_segfault(tmp_path: Path) -> None:
    # the C unpickler hashes the key while it builds the dict: the crash is inside the load itself
    path = tmp_path / "keyed.pickle"
    path.write_bytes(b"\x80\x02}K\x01" + b"\x85" * 300_000 + b"K\x02s.")
    seen = _analyze_keeps_the_log(path, tmp_path)
    assert seen["keyed.pickle"]["status"] == "skipped" and "nested too deeply" in seen["keyed.pickle"]["reason"]
