"""/dev/shm size and permissions, from `df /dev/shm` (1K blocks or -h), `ls -ld /dev/shm` and mount lines; and a
program's own word that /dev/shm is too small for it (Ray's object store, Triton's Python backend).

Sample input:
    Filesystem     1K-blocks  Used Available Use% Mounted on
    shm                65536     0     65536   0% /dev/shm
    drwxrwxrwt 2 root root 40 Jan  8 12:00 /dev/shm
    shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0
"""
from __future__ import annotations

import re

from doctor.facts.env import ShmShort, ShmSize
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_DF = lazy_compile(r"^\S+\s+(?P<size>\d+(?:[.,]\d+)?[KMGTP]?)\s+\S+\s+\S+\s+(?:\d+%|-)\s+/dev/shm/?\s*$")
_LS = lazy_compile(r"^(?P<mode>d[rwxsStT-]{9})[.+@]?\s+\d+\s+\S+\s+\S+\s+\d+\s+.*\s/dev/shm/?\s*$")
_MOUNT = lazy_compile(r"^\S+\s+(?:on\s+)?/dev/shm\s+(?:type\s+)?tmpfs\s+\(?(?P<opts>\S+?)\)?(?:\s+\d+\s+\d+)?\s*$")
# Ray's object store, started in a container whose /dev/shm is smaller than the store: refused, or moved to /tmp.
# The fallback's sentence is read from "/dev/shm because": pasted logs often wrap it after "instead", e.g.
#   2025-10-09 20:16:32,652    WARNING services.py:2159 -- WARNING: The object store is using /tmp instead
#     of /dev/shm because /dev/shm has only 5368709120 bytes available. This will harm performance! You may
_RAY_SHORT = lazy_compile(r"object store size .{0,60}?exceeds (?:the capacity of )?/dev/shm"
                          r"|/dev/shm because /dev/shm has only (?P<avail>\d+) bytes")
# Triton's Python backend keeps each model instance's region (64 MB at least) in /dev/shm: "Unable to initialize shared
# memory key 'triton_python_backend_shm_region_3' to requested size (67108864 bytes). If you are running Triton inside
# docker, use '--shm-size' flag ... Error: No space left on device" (server#6195, model_analyzer#749). The hint is
# printed whatever the error; only ENOSPC says the region did not fit.
_TRITON_SHORT = lazy_compile(r"Unable to initialize shared memory key '[^']*' to requested size \(\d+ bytes\)"
                             r".*No space left on device")
# An MPI library's shared-memory transport could not map its backing file (in /dev/shm or its session directory under
# /tmp or $XDG_RUNTIME_DIR): Open MPI's help text "It appears as if there is not enough space for <file> (the
# shared-memory backing file)" with its fields "Space Requested: N B" / "Space Available: M B" (users list 2014/25572,
# devel 2016/19126), its sm BTL's "create_and_attach: unable to create shared memory BTL coordinating structure"
# (2015/26906) and the aggregated "help-opal-shmem-mmap.txt / target full"; an older MPI's "Unable to allocate shared
# memory for intra-node messaging. / Delete stale shared memory files in /dev/shm." (users list 2008/11/7256).
_MPI_NO_SPACE = "not enough space for"
_MPI_AVAILABLE = lazy_compile(r"^\s*Space Available:\s*(?P<bytes>\d+)\s*B\s*$")
_MPI_REFUSED = lazy_compile(r"unable to create shared memory BTL coordinating structure"
                            r"|help-opal-shmem-mmap\.txt / target full"
                            r"|Unable to allocate shared memory for intra-node messaging")
_MPI_SPAN = 12      # the help text's fields follow its title within this many lines
# df -i / df -hi: the same rows count inodes, not bytes ("tmpfs 16M 3 16M 1% /dev/shm" is 16 M inodes)
_DF_HEADER = lazy_compile(r"^Filesystem\s+(?P<what>\S+)")
_POWERS = {"": 1024, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}


def _size(text: str) -> float:
    m = re.match(r"([\d.,]+)([KMGTP]?)", text.upper())
    return float(m[1].replace(",", ".")) * _POWERS[m[2]] if m else -1


class ShmLines(LineProbe):
    name = "dev_shm"
    yields = ("sys.shm", "sys.shm_short")
    triggers = ("/dev/shm", "Unable to initialize shared memory key", "Mounted on", _MPI_NO_SPACE, "Space Available:",
                "shared memory BTL coordinating structure", "help-opal-shmem-mmap.txt / target full",
                "Unable to allocate shared memory for intra-node")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.size: tuple[int, str, float] | None = None
        self.mode: tuple[int, str, bool] | None = None
        self.inodes = False            # under a `df -i` header: its rows count inodes
        self.no_space_at = -_MPI_SPAN  # the line of Open MPI's "not enough space for" title

    def feed(self, line_no: int, line: str) -> None:
        if self._mpi_backing_file(line_no, line):
            return
        if "Mounted on" in line and (h := _DF_HEADER.match(line)):
            self.inodes = h["what"] in ("Inodes", "IUsed")
            return
        m = _RAY_SHORT.search(line) if "object store" in line or "because /dev/shm" in line else None
        if m and m["avail"]:      # Ray measured /dev/shm (free bytes, all of it in a fresh container): a size like df's
            self.size = self.size or (line_no, line, float(m["avail"]))
            self.ctx.emit(ShmShort, line_no, line, program="ray", available=float(m["avail"]), refused=False)
            return
        if m:
            self.ctx.emit(ShmShort, line_no, line, program="ray", available=-1, refused=True)
            return
        if "shared memory key" in line and (m := _TRITON_SHORT.search(line)):
            self.ctx.emit(ShmShort, line_no, line, program="triton_python_backend", available=-1, refused=True)
            return
        m = _DF.match(line)
        if m:
            if not self.inodes:
                self.size = (line_no, line, _size(m["size"]))
            return
        m = _MOUNT.match(line)
        if m:
            size = re.search(r"(?:^|,)size=(\w+)", m["opts"])
            if size:
                self.size = (line_no, line, _size(size[1]) if size[1][-1].isalpha() else float(size[1]))
            return
        m = _LS.match(line)
        if m:
            self.mode = (line_no, line, m["mode"][8] == "w")   # others may write: every job user can

    def _mpi_backing_file(self, line_no: int, line: str) -> bool:
        """An MPI library's shared-memory backing file that did not fit: Open MPI's help text names the bytes free."""
        if _MPI_NO_SPACE in line and "It appears as if" in line:
            self.no_space_at = line_no
            return True
        if "Space Available:" in line and line_no - self.no_space_at <= _MPI_SPAN and (m := _MPI_AVAILABLE.match(line)):
            self.ctx.emit(ShmShort, line_no, line, program="mpi", available=float(m["bytes"]), refused=True)
            return True
        if ("shared memory" in line or "target full" in line) and _MPI_REFUSED.search(line):
            self.ctx.emit(ShmShort, line_no, line, program="mpi", available=-1, refused=True)
            return True
        return False

    def finish(self) -> None:
        if not (self.size or self.mode):
            return
        line_no, line, size = self.size or (0, "", -1.0)
        writable = self.mode[2] if self.mode else True
        if not self.size and self.mode:
            line_no, line = self.mode[0], self.mode[1]
        self.ctx.emit(ShmSize, line_no, line, node=self.ctx.node, rank=-1, size=size, writable=writable)
