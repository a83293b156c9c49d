"""Turn the paths a user gave into readable input files: directories walked, archives unpacked safely.

Uploaded files are untrusted. Archives are unpacked into a private temporary folder with every
member name flattened to a safe relative path (no absolute paths, no '..', no links, no devices),
and with caps on member count, member size and total size. Nothing is executed or unpickled.
"""
from __future__ import annotations

import gzip
import os
import shutil
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator

from doctor.errors import InputError

MAX_MEMBERS = 10_000
MAX_MEMBER_BYTES = 4 * 2**30
MAX_TOTAL_BYTES = 8 * 2**30
MAX_DEPTH = 2
HEAD_BYTES = 65536


@dataclass(frozen=True)
class InputFile:
    path: Path            # where to read it on this machine
    label: str            # what to call it in evidence (path as the user knows it, archive:member)
    node: str             # default node label for lines without a host prefix
    compressed: bool = False


def _node_label(label: str) -> str:
    name = PurePosixPath(label.replace(":", "/")).name
    for suffix in (".gz", ".log", ".txt", ".out", ".err", ".json", ".yaml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name or "input"


def safe_member_name(name: str) -> str | None:
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".", "/")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


class Workspace:
    """Owns the temporary folders archives are unpacked into; remove() deletes them."""

    def __init__(self) -> None:
        self._dirs: list[str] = []

    def new_dir(self) -> Path:
        path = tempfile.mkdtemp(prefix="doctor-in-")
        self._dirs.append(path)
        return Path(path)

    def remove(self) -> None:
        for path in self._dirs:
            shutil.rmtree(path, ignore_errors=True)
        self._dirs.clear()


def expand(paths: list[str], workspace: Workspace) -> list[InputFile]:
    """Every readable file under the given paths, in a stable order. Raises InputError for a missing path."""
    files: list[InputFile] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"{raw}: no such file or directory")
        files.extend(_expand_one(path, raw, workspace, depth=0))
    return files


def _expand_one(path: Path, label: str, workspace: Workspace, depth: int) -> Iterator[InputFile]:
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and not child.is_symlink():
                yield from _expand_one(child, f"{label.rstrip('/')}/{child.relative_to(path)}", workspace, depth)
        return
    if not os.access(path, os.R_OK):
        raise InputError(f"{label}: permission denied")
    kind = archive_kind(path)
    if kind and depth < MAX_DEPTH:
        target = workspace.new_dir()
        members = _unpack_tar(path, target, label) if kind == "tar" else _unpack_zip(path, target, label)
        for member in members:
            yield from _expand_one(target / member, f"{label}:{member}", workspace, depth + 1)
        return
    yield InputFile(path, label, _node_label(label), compressed=_is_gzip(path))


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def archive_kind(path: Path) -> str:
    """'tar' (plain or compressed), 'zip', or '' — decided by content, not by name."""
    if zipfile.is_zipfile(path):
        return "zip"
    try:
        return "tar" if tarfile.is_tarfile(path) else ""
    except (OSError, EOFError, tarfile.TarError):
        return ""


def _unpack_tar(path: Path, target: Path, label: str) -> list[str]:
    names: list[str] = []
    total = 0
    try:
        with tarfile.open(path, "r:*") as tar:
            for count, member in enumerate(tar):
                if count >= MAX_MEMBERS:
                    raise InputError(f"{label}: more than {MAX_MEMBERS} members; refusing to unpack")
                name = safe_member_name(member.name)
                if not member.isfile() or name is None:
                    continue
                total += member.size
                if member.size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
                    raise InputError(f"{label}: member {name} exceeds the size cap; refusing to unpack")
                source = tar.extractfile(member)
                if source is None:
                    continue
                _copy_capped(source, target / name, MAX_MEMBER_BYTES)
                names.append(name)
    except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
        raise InputError(f"{label}: damaged archive ({exc.__class__.__name__}: {exc})") from None
    return sorted(names)


def _unpack_zip(path: Path, target: Path, label: str) -> list[str]:
    names: list[str] = []
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise InputError(f"{label}: more than {MAX_MEMBERS} members; refusing to unpack")
            for info in infos:
                name = safe_member_name(info.filename)
                if info.is_dir() or name is None:
                    continue
                total += info.file_size
                if info.file_size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
                    raise InputError(f"{label}: member {name} exceeds the size cap; refusing to unpack")
                with archive.open(info) as source:
                    _copy_capped(source, target / name, MAX_MEMBER_BYTES)
                names.append(name)
    except (zipfile.BadZipFile, OSError, EOFError, zlib_error()) as exc:
        raise InputError(f"{label}: damaged archive ({exc.__class__.__name__}: {exc})") from None
    return sorted(names)


def zlib_error() -> type[Exception]:
    import zlib
    return zlib.error


def _copy_capped(source, dest: Path, cap: int) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with dest.open("wb") as out:
        while chunk := source.read(1 << 20):
            written += len(chunk)
            if written > cap:
                raise InputError(f"{dest.name}: larger than its declared size cap; refusing to unpack")
            out.write(chunk)


def read_head(item: InputFile, size: int = HEAD_BYTES) -> bytes:
    """The first bytes of a file (decompressed when gzip). Truncated gzip yields what could be read."""
    opener = gzip.open if item.compressed else open
    try:
        with opener(item.path, "rb") as fh:
            return fh.read(size)
    except (OSError, EOFError, zlib_error()):
        return b""


def is_binary(head: bytes) -> bool:
    """NUL bytes or mostly non-text bytes mean this is not a log."""
    if not head:
        return False
    if b"\x00" in head[:8192]:
        return True
    sample = head[:8192]
    text_bytes = sum(1 for b in sample if b >= 32 or b in (9, 10, 12, 13, 27))
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 4:   # a character cut at the end of the sample
            return False
    return text_bytes / len(sample) < 0.85
