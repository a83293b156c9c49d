"""Which machine wrote a file, read from its content, never from its name.

Two logs of one machine must not look like two nodes (a version "skew" between a file and itself), so a
file's node is the one host its content names: NCCL line prefixes, a shell prompt, nccl-tests rank lines,
a HOSTNAME variable, a hostname line, `uname -a`, a syslog prefix. A file naming no host, or several, has node
UNKNOWN: lines that carry their own prefix still name their writer (doctor.probing.lines.who).
A doctor bundle's manifest names its node too (doctor/probing/bundle.py), which wins over this.
"""
from __future__ import annotations

import re

UNKNOWN = ""
MAX_HOSTS = 1     # more than one host named: the file is a merge of several machines, no default node

HOST_SIGNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("NCCL line prefix host:pid:tid [dev]",
     re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(?P<host>[A-Za-z][\w.\-]*):\d+:\d+ \[\d+\]", re.M)),
    # the prompt ends in $ or # after the path: "10.1.53.46@tcp:/fsname" at a line's start is a Lustre mount in df
    ("shell prompt user@host:path$", re.compile(r"^\s*(?:\(\S+\)\s*)?[\w.\-]+@(?P<host>[A-Za-z][\w.\-]*):[~/][^\s$#]*[$#]", re.M)),
    ("shell prompt [user@host dir]$ (RHEL, CentOS, Rocky)",
     re.compile(r"^\s*(?:\([^\[\n]*\)\s*)?\[[\w.\-]+@(?P<host>[A-Za-z][\w.\-]*) [^\]\n]*\][$#]", re.M)),
    ("nccl-tests rank line", re.compile(r"^#\s+Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(?P<host>[\w.\-]+)\s+device", re.M)),
    ("HOSTNAME variable", re.compile(r"^\s*(?:export\s+)?HOSTNAME=(?P<host>[A-Za-z][\w.\-]*)\s*$", re.M)),
    ("hostname line", re.compile(r"^\s*(?:Hostname|Host name|hostname|Node name)\s*[:=]\s*(?P<host>[A-Za-z][\w.\-]*)\s*$", re.M)),
    ("uname -a", re.compile(r"^Linux (?P<host>[A-Za-z][\w.\-]*) \d+\.\d+\S* #\d", re.M)),
    ("syslog prefix", re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (?P<host>[A-Za-z][\w.\-]*) (?:kernel|systemd)\b", re.M)),
)


def hosts_named(text: str) -> set[str]:
    """Every host the text names as its writer."""
    return {m["host"] for _, pattern in HOST_SIGNS for m in pattern.finditer(text)}


def file_node(text: str) -> str:
    """The one host the text names, else UNKNOWN."""
    hosts = hosts_named(text)
    return next(iter(hosts)) if 0 < len(hosts) <= MAX_HOSTS else UNKNOWN
