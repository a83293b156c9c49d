"""Line-level helpers shared by parsers: who wrote a line (node, rank), sizes, errnos, addresses."""
from __future__ import annotations

import ipaddress
import json
import re
from typing import Any
from dataclasses import dataclass

from doctor.probing.blocks import MAX_LINE  # parsers never see more than this many characters of one line

# host:pid:tid [dev] ...  (NCCL_DEBUG prefix; the bracket is the local CUDA device, not the rank)
_NCCL_PREFIX = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(?P<host>[A-Za-z0-9][\w.\-]*):(?P<pid>\d+|X+):(?P<tid>\d+|X+) \[(?P<dev>\d+)\]")
_RANK_PREFIX = re.compile(r"^\s*\[(?:rank|RANK|Rank)\s*(?P<rank>\d+)\]\s*:?")
_DEFAULT_PREFIX = re.compile(r"^\s*\[default(?P<rank>\d+)\]\s*:")
_SRUN_PREFIX = re.compile(r"^\s*(?P<rank>\d{1,5}):\s")
# Open MPI's mpirun --tag-output (Kubeflow's MPIJob, Horovod): "[1,3]<stdout>:" is job 1, rank 3, and which stream
_OMPI_TAG_PREFIX = re.compile(r"^\s*\[\d{1,10},(?P<rank>\d{1,7})\]<(?:stdout|stderr|stddiag)>:")
_PDSH_PREFIX = re.compile(r"^\s*(?P<host>[A-Za-z0-9][\w.\-]{0,126}\d[\w.\-]{0,126}):\s")   # bounded: 4,000 digits were 0.1 s
# Ray's driver prints every line a worker process wrote behind "(ActorName pid=N[, ip=A])" (Ray 1.x: "(pid=N)"):
# the writer, not the text.
_RAY_PREFIX = re.compile(r"^\s*\((?:[A-Za-z_][\w.]{0,80} )?pid=\d+(?:, ip=[^)\s]{1,80})?\)\s?")
_ANSI = re.compile(r"(?:\x1b|\^\[)\[[0-9;]*m")     # ESC [ ... m, or ESC written as caret notation "^[" (less, cat -v)
# the same codes with their ESC lost in a paste (GitHub drops it): "[36m(Actor pid=1)[0m ValueError: ..."; taken out
# only where a bare reset "[0m" shows the loss
_BARE_CODE = re.compile(r"\[[0-9;]{1,8}m")
# An ISO-8601 time stamp a collector put before the line (GitHub Actions, Buildkite, `kubectl logs --timestamps`,
# a CI's "[2026-02-24T20:21:58Z] "): when, not who nor what
_ISO_STAMP = re.compile(r"^\[?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?\s")
# pytest's failure report puts "E" and spaces before each line of the exception it caught ("E       RuntimeError:
# In operator() at tensorpipe/common/ibv.h:172 ...", pytorch#73885): the reporter, not the text
_PYTEST_E = re.compile(r"^E {1,8}(?=\S)")


@dataclass(frozen=True, slots=True)
class Who:
    node: str
    rank: int
    body: str


def without_colour(text: str) -> str:
    """Text with a terminal's colour and underline codes taken out: output copied from a terminal (nvidia-smi
    underlines `topo -m`'s header) reads as the same output printed to a file. Line breaks are kept."""
    if "[" not in text or not ("\x1b" in text or "[0m" in text or "^[[" in text):
        return text
    text = _ANSI.sub("", text)
    return _BARE_CODE.sub("", text) if "[0m" in text else text


def who(line: str, default_node: str) -> Who:
    """Split a leading writer prefix off a log line: NCCL host:pid:tid, [rankN]:, [defaultN]:, Open MPI's [J,N]<stdout>:,
    srun 'N: ', pdsh 'host: ', and Ray's "(Actor pid=N, ip=A) " in front of any of them, behind a collector's ISO time
    stamp or pytest's "E   "."""
    line = without_colour(line)
    if line[:1] in "[0123456789" and (m := _ISO_STAMP.match(line)):
        line = line[m.end():]
    if line[:2] == "E " and (m := _PYTEST_E.match(line)):
        line = line[m.end():]
    if "pid=" in line[:100]:
        m = _RAY_PREFIX.match(line)
        line = line[m.end():] if m else line
    node, rank, rest = default_node, -1, line
    for pattern in (_RANK_PREFIX, _DEFAULT_PREFIX, _OMPI_TAG_PREFIX, _SRUN_PREFIX):
        m = pattern.match(rest)
        if m:
            rank, rest = int(m["rank"]), rest[m.end():]
            break
    m = _NCCL_PREFIX.match(rest)     # alone, or behind a rank's prefix: "[1,0]<stdout>:host:pid:tid [0] NCCL ..."
    if m:
        return Who(m["host"], rank, rest[m.end():])
    m = _PDSH_PREFIX.match(rest)
    if m and not m["host"].endswith(("Error", "Exception", "Warning")):
        node, rest = m["host"], rest[m.end():]
        m2 = _NCCL_PREFIX.match(rest)
        if m2:
            node, rest = m2["host"], rest[m2.end():]
    return Who(node, rank, rest)


_UNITS = {"b": 1, "bytes": 1, "kib": 2**10, "kb": 10**3, "mib": 2**20, "mb": 10**6, "gib": 2**30, "gb": 10**9,
          "tib": 2**40, "tb": 10**12}


def to_bytes(number: str, unit: str) -> float:
    """'23.70', 'GiB' -> bytes. Unknown units count as bytes."""
    return float(number) * _UNITS.get(unit.lower(), 1)


_ERRNO_WORDS: tuple[tuple[str, str], ...] = (
    ("no space left", "ENOSPC"), ("permission denied", "EACCES"), ("cannot allocate memory", "ENOMEM"),
    ("connection timed out", "ETIMEDOUT"), ("no such device", "ENODEV"), ("connection refused", "ECONNREFUSED"), ("connection reset", "ECONNRESET"), ("network is unreachable", "ENETUNREACH"),
    ("no route to host", "EHOSTUNREACH"), ("address already in use", "EADDRINUSE"), ("no such file", "ENOENT"),
    ("software caused connection abort", "ECONNABORTED"), ("invalid argument", "EINVAL"), ("operation not permitted", "EPERM"),
    ("bad address", "EFAULT"), ("resource temporarily unavailable", "EAGAIN"), ("timed out", "ETIMEDOUT"), ("timeout", "ETIMEDOUT"),
    ("no data available", "ENODATA"),
)
_ERRNO_NUMBERS = {"28": "ENOSPC", "13": "EACCES", "12": "ENOMEM", "110": "ETIMEDOUT", "19": "ENODEV", "111": "ECONNREFUSED",
                  "104": "ECONNRESET", "101": "ENETUNREACH", "113": "EHOSTUNREACH", "98": "EADDRINUSE", "2": "ENOENT",
                  "22": "EINVAL", "1": "EPERM"}


def errno_of(text: str) -> str:
    """The symbolic errno a message names, by words first, then by a bare errno number."""
    low = text.lower()
    for words, name in _ERRNO_WORDS:
        if words in low:
            return name
    m = re.search(r"(?:errno|error|failed with)[:\s=]*\(?(\d{1,3})\b", low)
    return _ERRNO_NUMBERS.get(m.group(1), "") if m else ""


def address_class(address: str) -> tuple[bool, bool]:
    """(loopback, link_local) for an address string (scope ids and brackets tolerated)."""
    text = address.strip("[]").split("%")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text in ("localhost",), False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_loopback, ip.is_link_local


_VIRTUAL_IF = re.compile(r"^(docker|veth|virbr|br-|cni|flannel|cali|vxlan|tun|tap|kube|lxc|weave|podman|zt)")


def virtual_interface(name: str) -> bool:
    return bool(_VIRTUAL_IF.match(name))


def version_num(text: str) -> int:
    """'2.18.5' -> 21805, '12.1' -> 120100; 0 when there is no number. A version whose first field reaches 100 (an
    NVIDIA driver, 535.104.05; a calendar version, 2026.9.0) takes three digits a field, 535104005: two would cap
    104 and 183 alike, and a policy pinning driver 535.104.05 could not tell 535.183.05 from it."""
    parts = re.findall(r"\d+", text)[:3]
    if not parts:
        return 0
    nums = [int(p) for p in parts] + [0] * (3 - len(parts))
    if nums[0] >= 100:
        return nums[0] * 1000000 + min(nums[1], 999) * 1000 + min(nums[2], 999)
    return nums[0] * 10000 + min(nums[1], 99) * 100 + min(nums[2], 99)


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object a document holds, or None for invalid JSON or anything but an object."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
