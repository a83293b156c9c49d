"""`doctor analyze` on hostile and broken uploads, through the real command line.

Each case must end with a defined exit code (0 nothing found, 1 found, 2 unreadable) and, when it
fails, exactly one line on stderr and no traceback; archives must never write outside doctor's own
temporary folder, which must be gone afterwards.
"""
from __future__ import annotations

import gzip
import importlib.util
import io
import json
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from doctor_cli import run_doctor

# A bare store connect timeout is read two ways (NET001 port_blocked, NET030 master_addr_wrong), nearly tied in the
# fitted weights (6 and 5 cases of the base where both fire): these tests check that the line was read, not the tie.
STORE_TIMEOUT = ("port_blocked", "master_addr_wrong")
FAILURE = ("[rank1]: torch.distributed.DistNetworkError: The client socket has timed out after 10000ms "
           "while trying to connect to (10.0.0.1, 29500).\n")
STEPS = "".join(f"[rank1]: step {i} loss 0.{i % 97:02d} lr 3e-4\n" for i in range(20000))


def analyze(*paths: Path, tmp: Path, env: dict[str, str] | None = None):
    """Run `doctor analyze --json` with TMPDIR pointing at `tmp`, which must be empty afterwards."""
    tmp.mkdir(exist_ok=True)
    done = run_doctor("analyze", "--json", *map(str, paths), env={"TMPDIR": str(tmp), **(env or {})})
    assert "Traceback" not in done.stderr
    assert list(tmp.iterdir()) == [], "doctor left files in its temporary folder"
    return done


def one_line_error(done) -> str:
    assert done.returncode == 2, done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("doctor: "), done.stderr
    return lines[0]


def report(done) -> dict:
    assert done.returncode == 1, done.stderr
    return json.loads(done.stdout)


def causes(done) -> list[str]:
    return [d["cause"] for d in report(done)["diagnoses"]]


def inputs(done) -> dict[str, dict]:
    return {Path(i["path"]).name if ":" not in i["path"] else i["path"].split(":", 1)[1]: i
            for i in report(done)["inputs"]}


def test_garbage_text_finds_nothing(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("lorem ipsum dolor\nsit amet 1234 %%% []\n\tconsectetur\n" * 50)
    done = run_doctor("analyze", str(path))
    assert done.returncode == 0, done.stderr
    assert "No known cause" in done.stdout


def test_random_binary_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "core.bin"
    path.write_bytes(os.urandom(300_000))
    assert "binary content" in one_line_error(analyze(path, tmp=tmp_path / "tmp"))


def test_empty_file_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    assert "empty file" in one_line_error(analyze(path, tmp=tmp_path / "tmp"))


def test_nonexistent_path_is_one_line_exit_2(tmp_path: Path) -> None:
    assert "no-such.log: no such file or directory" in one_line_error(analyze(tmp_path / "no-such.log", tmp=tmp_path / "tmp"))


def test_truncated_gzip_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    whole = gzip.compress((FAILURE + STEPS).encode())
    path = tmp_path / "rank1.log.gz"
    path.write_bytes(whole[: len(whole) // 2])
    done = analyze(path, tmp=tmp_path / "tmp")
    assert causes(done)[0] in STORE_TIMEOUT
    assert report(done)["diagnoses"][0]["evidence"][0]["line"] == 1


def test_gzip_cut_inside_its_header_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "rank1.log.gz"
    path.write_bytes(gzip.compress(FAILURE.encode())[:6])
    one_line_error(analyze(path, tmp=tmp_path / "tmp"))


@pytest.mark.parametrize("scanner", ["hyperscan", "rg", "grep", "python"])
def test_ten_megabyte_line_keeps_its_trigger(tmp_path: Path, scanner: str) -> None:
    if scanner == "rg" and not shutil.which("rg"):
        pytest.skip("ripgrep (rg) is not installed: the other scanners are tested")
    if scanner == "hyperscan" and importlib.util.find_spec("hyperscan") is None:
        pytest.skip("hyperscan is not installed (extra 'fast'): the other scanners are tested")
    path = tmp_path / "progress.log"           # a progress bar redrawn with \r is one huge line
    bar = b"\r 42%|####      | 420/1000 [00:01<00:02]" * 125_000
    path.write_bytes(bar + FAILURE.strip().encode() + bar + b"\n" + STEPS[:2000].encode())
    env = {"DOCTOR_SCANNER": scanner}
    done = analyze(path, tmp=tmp_path / "tmp", env=env)
    diagnosis = report(done)["diagnoses"][0]
    assert diagnosis["cause"] in STORE_TIMEOUT and diagnosis["evidence"][0]["line"] == 1


def test_hostile_tar_writes_nothing_outside(tmp_path: Path) -> None:
    outside = tmp_path / "abs-target.log"
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("../escape.log", "../../escape2.log", str(outside), "logs/rank1.log"):
            _add(tar, name, FAILURE.encode())
        for name, kind in (("passwd.log", tarfile.SYMTYPE), ("hard.log", tarfile.LNKTYPE)):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, "/etc/passwd"
            tar.addfile(info)
    done = analyze(archive, tmp=tmp_path / "tmp")
    assert causes(done)[0] in STORE_TIMEOUT
    assert not outside.exists() and not (tmp_path / "escape.log").exists() and not (tmp_path / "escape2.log").exists()
    seen = inputs(done)
    assert "unsafe member name" in seen["../escape.log"]["reason"]
    assert seen["passwd.log"]["status"] == seen["hard.log"]["status"] == "skipped"
    assert seen["logs/rank1.log"]["status"] == "ok"
    assert seen[str(outside).lstrip("/")]["status"] == "ok"   # unpacked inside doctor's folder, under a relative name


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def test_member_over_the_cap_is_skipped_and_listed(tmp_path: Path) -> None:
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("huge.log", b"0" * (8 * 2**20))      # compresses to a few kB: a small bomb
        bundle.writestr("rank1.log", FAILURE)
    done = analyze(archive, tmp=tmp_path / "tmp", env={"DOCTOR_MAX_MEMBER_BYTES": str(2**20)})
    assert causes(done)[0] in STORE_TIMEOUT
    huge = inputs(done)["huge.log"]
    assert huge["status"] == "skipped" and "member cap" in huge["reason"] and huge["bytes"] == 8 * 2**20


def test_folder_with_a_binary_and_a_log(tmp_path: Path) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "a-core.bin").write_bytes(os.urandom(20_000))
    (folder / "b-zeros.dat").write_bytes(bytes(64 * 1024))  # NUL blocks look like an empty tar to tarfile
    (folder / "rank1.log").write_text(STEPS[:5000] + FAILURE)
    done = analyze(folder, tmp=tmp_path / "tmp")
    assert causes(done)[0] in STORE_TIMEOUT
    seen = inputs(done)
    assert seen["a-core.bin"]["status"] == seen["b-zeros.dat"]["status"] == "skipped"
    assert "binary" in seen["a-core.bin"]["reason"] and seen["rank1.log"]["status"] == "ok"


def test_damaged_zip_is_not_a_traceback(tmp_path: Path) -> None:
    whole = io.BytesIO()
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("rank1.log", STEPS + FAILURE)
    path = tmp_path / "bundle.zip"
    path.write_bytes(whole.getvalue()[:-30])                 # central directory cut off
    one_line_error(analyze(path, tmp=tmp_path / "tmp"))
