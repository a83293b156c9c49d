"""Turn the paths a user gave into readable input files: directories walked, archives unpacked safely.

Uploaded files are untrusted. Archives are unpacked into a private temporary folder with every
member name flattened to a safe relative path (no absolute paths, no '..', no links, no devices),
and with caps on member count, member size and total size. Nothing is executed or unpickled.
A member that is not unpacked (unsafe name, link, over a size cap) is still listed, as skipped.
The size caps can be lowered for tests with DOCTOR_MAX_MEMBER_BYTES / DOCTOR_MAX_TOTAL_BYTES.
"""
from __future__ import annotations

import gzip
import os
import secrets
import sys
import zlib
import shutil
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator

from doctor.errors import InputError
from doctor.probing.hosts import UNKNOWN, file_node

MAX_MEMBERS = 10_000
MAX_FILES = int(os.environ.get("DOCTOR_MAX_FILES", 10_000))   # files in one upload: folders and archives, nested too
MAX_MEMBER_BYTES = int(os.environ.get("DOCTOR_MAX_MEMBER_BYTES", 4 * 2**30))
MAX_TOTAL_BYTES = int(os.environ.get("DOCTOR_MAX_TOTAL_BYTES", 8 * 2**30))
MAX_STDIN_BYTES = int(os.environ.get("DOCTOR_MAX_STDIN_BYTES", 2**30))   # a piped log: read up to this, say so past it
STDIN_NAMES = ("-", "/dev/stdin")
MAX_DEPTH = 2
MAX_FOLDER_DEPTH = 64     # levels of sub-folders read under a folder argument (1,000 levels hit the recursion limit)
HEAD_BYTES = 65536
_COMPRESSED_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")   # gzip, bzip2, xz


@dataclass(frozen=True)
class InputFile:
    path: Path            # where to read it on this machine
    label: str            # what to call it in evidence (path as the user knows it, archive:member)
    node: str             # the host the content names (doctor.probing.hosts), '' when unknown; never the file name
    compressed: bool = False
    skipped: str = ""     # why an archive member was not unpacked; path is then the archive
    size: int = -1        # the member's declared size, when skipped


@dataclass(frozen=True)
class Member:
    """One archive member: unpacked under `name`, or skipped for `reason`."""

    name: str
    reason: str = ""
    size: int = -1


def safe_member_name(name: str) -> str | None:
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", ".", "/")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


class Workspace:
    """Owns the temporary folder archives are unpacked into (one per upload, a folder inside it per archive);
    remove() deletes it. The folder's name is recorded before it is made, so a SIGTERM between the two (its handler
    unwinds to remove()) cannot leave a folder nobody knows of."""

    def __init__(self) -> None:
        self._root = ""
        self.files_left = MAX_FILES     # one cap for the whole upload: nesting archives does not multiply it

    def new_dir(self) -> Path:
        while not self._root:
            self._root = os.path.join(tempfile.gettempdir(), f"doctor-in-{secrets.token_hex(8)}")
            try:
                os.mkdir(self._root, 0o700)
            except OSError as err:
                self._root = ""
                if not isinstance(err, FileExistsError):
                    raise
        return Path(tempfile.mkdtemp(dir=self._root))

    def remove(self) -> None:
        if self._root:
            shutil.rmtree(self._root, ignore_errors=True)
        self._root = ""


def expand(paths: list[str], workspace: Workspace) -> list[InputFile]:
    """Every readable file under the given paths, in a stable order. Raises InputError for a missing path."""
    files: list[InputFile] = []
    stdin_read = False
    for raw in paths:
        if raw in STDIN_NAMES:
            if stdin_read:
                raise InputError(f"{raw}: standard input was already named once; it can be read only once")
            stdin_read = True
            files.extend(_read_stdin(raw, workspace))
            continue
        path = Path(raw)
        if not path.exists():
            raise InputError(f"{raw}: no such file or directory")
        if not path.is_dir() and not path.is_file():     # a FIFO blocks for ever, /dev/zero never ends
            files.append(InputFile(path, raw, UNKNOWN, skipped="not a regular file or folder (a pipe, "
                                   "device or socket); not read", size=0))
            continue
        for item in _expand_one(path, raw, workspace, depth=0):
            if workspace.files_left <= 0:
                files.append(InputFile(path, raw, UNKNOWN, skipped=f"more than {MAX_FILES} files in the upload; "
                                       "the rest not read", size=0))
                return files
            workspace.files_left -= 1
            files.append(item)
    return files


def _read_stdin(label: str, workspace: Workspace) -> list[InputFile]:
    """`-` (or /dev/stdin): the piped log, copied as a stream into the workspace, at most MAX_STDIN_BYTES.
    Past the cap the rest is left unread and the report says so; a terminal is refused (it would wait for typing)."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError(f"{label}: standard input is a terminal; pipe a log into it "
                         "(`cat rank0.log | doctor analyze -`) or name the file")
    target = workspace.new_dir() / "stdin"
    written = 0
    truncated = False
    source = sys.stdin.buffer
    with target.open("wb") as out:
        while chunk := source.read1(1 << 20):
            room = MAX_STDIN_BYTES - written
            out.write(chunk[:room])
            written += min(len(chunk), room)
            if len(chunk) > room:
                truncated = True
                break
    item = InputFile(target, "stdin", UNKNOWN, compressed=_is_gzip(target))
    found = [InputFile(target, "stdin", file_node(read_head(item).decode("utf-8", "replace")), item.compressed)]
    if truncated:
        found.append(InputFile(target, "stdin", UNKNOWN, skipped=f"more than {MAX_STDIN_BYTES} bytes piped in; "
                               "the first ones read, the rest not", size=written))
    return found


def _expand_one(path: Path, label: str, workspace: Workspace, depth: int) -> Iterator[InputFile]:
    if path.is_dir():
        for child, refusal in _walk(path):
            where = f"{label.rstrip('/')}/{child.relative_to(path)}"
            if refusal:
                yield InputFile(child, where, UNKNOWN, skipped=refusal, size=0)
            else:
                yield from _expand_one(child, where, workspace, depth)
        return
    if not os.access(path, os.R_OK):
        raise InputError(f"{label}: permission denied")
    kind = archive_kind(path)
    if kind and depth < MAX_DEPTH:
        target = workspace.new_dir()
        unpack = _unpack_tar if kind == "tar" else _unpack_zip
        members = unpack(path, target, label, workspace.files_left)
        for member in members:
            where = f"{label}:{member.name}"
            if member.reason:
                yield InputFile(path, where, UNKNOWN, skipped=member.reason, size=member.size)
            else:
                yield from _expand_one(target / member.name, where, workspace, depth + 1)
        if not members:
            yield InputFile(path, label, UNKNOWN, skipped="an archive without files", size=path.stat().st_size)
        return
    compressed = _is_gzip(path)
    head = read_head(InputFile(path, label, UNKNOWN, compressed))
    yield InputFile(path, label, file_node(head.decode("utf-8", "replace")), compressed=compressed)


def _walk(top: Path) -> Iterator[tuple[Path, str]]:
    """(file, "") for every regular file under top, in the order of sorted(top.rglob("*")), without recursion;
    (folder, why) for a folder not entered. Links are not followed."""
    stack: list[tuple[Path, bool, int]] = [(top, True, 0)]
    while stack:
        path, is_dir, level = stack.pop()
        if not is_dir:
            yield path, ""
            continue
        if level > MAX_FOLDER_DEPTH:
            yield path, f"more than {MAX_FOLDER_DEPTH} levels of folders; the deeper ones not read"
            continue
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            yield path, f"folder not readable ({exc.strerror or exc})"
            continue
        for entry in reversed(entries):
            if entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), True, level + 1))
            elif entry.is_file(follow_symlinks=False):
                stack.append((Path(entry.path), False, level))


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def archive_kind(path: Path) -> str:
    """'tar' (plain or compressed), 'zip', or '' — decided by content, not by name.

    A tar must hold a first member: tarfile.is_tarfile() also accepts any run of NUL blocks (a
    zeroed or sparse file), which would otherwise vanish from the inputs as an "empty archive".
    Only a file that starts like a tar or a compressed stream is tried: tarfile's probing of every
    compression on an arbitrary file can read all of it (6 s for 50 MB of NULs through lzma).
    """
    if zipfile.is_zipfile(path):
        return "zip"
    with path.open("rb") as fh:
        head = fh.read(512)
    if not head.startswith(_COMPRESSED_MAGIC) and head[257:262] != b"ustar":
        return ""
    try:
        with tarfile.open(path, "r:*") as tar:
            return "tar" if tar.next() is not None else ""
    except (OSError, EOFError, tarfile.TarError, zlib.error):
        return ""


def _unpack_tar(path: Path, target: Path, label: str, budget: int = MAX_FILES) -> list[Member]:
    """Unpack at most `budget` members. Reading stops at the first member over a size cap: reaching the next
    header of a compressed tar means decompressing the refused member (100 GiB of zeros is 79 KB of bzip2)."""
    members: list[Member] = []
    total = 0
    try:
        with tarfile.open(path, "r:*") as tar:
            for count, info in enumerate(tar):
                if count >= MAX_MEMBERS:
                    raise InputError(f"{label}: more than {MAX_MEMBERS} members; refusing to unpack")
                if info.isdir():
                    continue
                if len(members) >= budget:
                    members.append(_over_budget(info.name))
                    break
                name = safe_member_name(info.name)
                reason = _refusal(info.name, name, info.isfile(), info.size, total)
                if not reason:
                    total += info.size
                    source = tar.extractfile(info)
                    if source is not None:
                        _copy_capped(source, target / name, MAX_MEMBER_BYTES)   # type: ignore[operator]
                elif info.size > MAX_MEMBER_BYTES or total + info.size > MAX_TOTAL_BYTES:
                    members.append(Member(name or info.name, reason + "; the members after it not read", info.size))
                    break
                members.append(Member(name or info.name, reason, info.size))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise InputError(f"{label}: damaged archive ({exc.__class__.__name__}: {exc})") from None
    return sorted(members, key=lambda m: m.name)


def _refusal(raw: str, name: str | None, regular: bool, size: int, total: int) -> str:
    """Why a member must not be unpacked, or ''."""
    if name is None:
        return f"unsafe member name {raw!r} (absolute or '..'); not unpacked"
    if not regular:
        return "a link or special file; not unpacked"
    if size > MAX_MEMBER_BYTES:
        return f"{size} bytes, over the {MAX_MEMBER_BYTES}-byte member cap; not unpacked"
    if total + size > MAX_TOTAL_BYTES:
        return f"the archive would unpack to over {MAX_TOTAL_BYTES} bytes; not unpacked"
    return ""


def _over_budget(name: str) -> Member:
    return Member(name, f"more than {MAX_FILES} files in the upload; the rest of the archive not unpacked", 0)


def _unpack_zip(path: Path, target: Path, label: str, budget: int = MAX_FILES) -> list[Member]:
    members: list[Member] = []
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise InputError(f"{label}: more than {MAX_MEMBERS} members; refusing to unpack")
            for info in infos:
                if info.is_dir():
                    continue
                if len(members) >= budget:
                    members.append(_over_budget(info.filename))
                    break
                name = safe_member_name(info.filename)
                reason = _refusal(info.filename, name, not _zip_link(info), info.file_size, total)
                if not reason:
                    total += info.file_size
                    with archive.open(info) as source:
                        _copy_capped(source, target / name, MAX_MEMBER_BYTES)   # type: ignore[operator]
                members.append(Member(name or info.filename, reason, info.file_size))
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{label}: damaged archive ({exc.__class__.__name__}: {exc})") from None
    return sorted(members, key=lambda m: m.name)


def _zip_link(info: zipfile.ZipInfo) -> bool:
    """A zip member made on Unix from a symlink (S_IFLNK in the external attributes)."""
    return (info.external_attr >> 16) & 0o170000 == 0o120000


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
            return read_upto(fh, size)
    except OSError:
        return b""


def read_upto(fh, size: int) -> bytes:
    """Up to `size` bytes. A truncated or corrupt gzip stream yields what it held before the damage
    (a plain fh.read(size) raises EOFError and loses everything it had decompressed)."""
    parts: list[bytes] = []
    left = size
    try:
        while left > 0:
            chunk = fh.read1(min(left, 1 << 20))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
    except (EOFError, OSError, zlib.error):
        pass
    return b"".join(parts)


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
