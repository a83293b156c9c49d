"""Synthetic job uploads for bench/fleet_10k.py and tests/fleet: recombinations of the project's lab recordings.

A synthetic job is NOT a recording: it takes one recorded incident (fixtures/incidents/*: real gloo / mpirun
runs made by lab/), gives its per-node files fleet host names (renamed files, host names rewritten in the
text, consistently within the job, and a `HOSTNAME=` line appended so the content names its host), and adds a Slurm environment file (job id, allocation in hostlist
syntax, start time) so the job ran on more nodes than logged. Causes come from the recordings; which node
carries them is chosen here: a few injected bad nodes repeat one node-class cause (a straggler), a busy
decoy node runs a large share of all jobs with no more failures than anyone.
"""
from __future__ import annotations

import io
import random
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

INCIDENTS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"
DAY = 86400.0


@dataclass(frozen=True)
class Template:
    """One recording: its per-node files (file -> slot), words naming those nodes, the slot at fault."""

    incident: str
    kind: str                                    # healthy | program | node
    files: dict[str, int]
    words: dict[str, int] = field(default_factory=dict)
    culprit: int | None = None                   # the slot a node-class cause is attributed to


# the recordings used; slot 0, 1 are the job's logged hosts
TEMPLATES: dict[str, Template] = {t.incident: t for t in (
    Template("healthy-2node-netns", "healthy", {"node0.log": 0, "node1.log": 1}, {"node0": 0, "node1": 1}),
    Template("healthy-loopback", "healthy", {"rank0.log": 0, "rank1.log": 1}),
    Template("gloo-ifname-missing-netns", "program", {"node0.log": 0, "node1.log": 1}, {"node0": 0, "node1": 1}),
    Template("store-port-dropped-netns", "program", {"node0.log": 0, "node1.log": 1}, {"node0": 0, "node1": 1}),
    Template("rank-skips-collective", "program", {"rank0.log": 0, "rank1.log": 1}),
    Template("straggler-slow-rank", "node", {"rank0.log": 0, "rank1.log": 1}, culprit=1),
    Template("mpirun-not-cuda-aware-netns", "node", {"node0.log": 0}, {"node0": 0}, culprit=0),
)}
MIX = (("healthy", 0.45), ("program", 0.35), ("node", 0.20))
BAD_TEMPLATE = "straggler-slow-rank"


def fleet_nodes() -> list[str]:
    """Three partitions with different naming schemes: 408 nodes."""
    return ([f"gpu-a{i:03d}" for i in range(1, 161)] + [f"dgx{i:04d}" for i in range(1, 121)]
            + [f"hpc-r{r:02d}n{n:02d}" for r in range(1, 9) for n in range(1, 17)])


@dataclass
class Truth:
    bad: list[str]
    decoy: str
    uploads: list[str]
    hostile: list[str]


def generate(root: Path, jobs: int, seed: int = 14, bad: int = 6, bad_jobs: int | None = None,
             decoy_share: float = 0.2, archive_share: float = 0.05) -> Truth:
    rng = random.Random(seed)
    bad_jobs = bad_jobs if bad_jobs is not None else max(4, min(30, jobs // 330))
    nodes = fleet_nodes()
    partitions = [nodes[:160], nodes[160:280], nodes[280:]]
    bad_nodes = sorted(rng.sample([n for p in partitions for n in p[10:]], bad))
    decoy = "gpu-a007"
    texts = {name: _read(t) for name, t in TEMPLATES.items()}
    injected = [node for node in bad_nodes for _ in range(bad_jobs)]
    rng.shuffle(injected)
    inject_at = set(rng.sample(range(jobs), len(injected)))
    root.mkdir(parents=True, exist_ok=True)
    uploads: list[str] = []
    now = 1_796_000_000.0           # a fixed "now" (2026-11-30) so the set is reproducible
    for index in range(jobs):
        culprit = injected.pop() if index in inject_at else None
        template = TEMPLATES[BAD_TEMPLATE] if culprit else _pick(rng)
        allocation = _allocation(rng, partitions, decoy, decoy_share, culprit)
        logged = _logged(rng, template, allocation, culprit)
        started = now - rng.uniform(0, 14 * DAY)
        files = _job_files(template, texts[template.incident], logged, allocation, 900000 + index, started)
        uploads.append(_write(root, index, files, rng.random() < archive_share))
    hostile = _hostile(root)
    return Truth(bad_nodes, decoy, uploads + hostile, hostile)


def _read(t: Template) -> dict[str, str]:
    folder = INCIDENTS / t.incident
    return {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.is_file()}


def _pick(rng: random.Random) -> Template:
    kind = rng.choices([k for k, _ in MIX], [w for _, w in MIX])[0]
    return rng.choice([t for t in TEMPLATES.values() if t.kind == kind])


def _allocation(rng: random.Random, partitions: list[list[str]], decoy: str, decoy_share: float,
                culprit: str | None) -> list[str]:
    size = rng.choice((2, 2, 2, 4, 4, 8, 8, 16))
    if culprit:
        pool = next(p for p in partitions if culprit in p)
    else:
        pool = partitions[0] if rng.random() < decoy_share else rng.choice(partitions)
    picked = set(rng.sample(pool, size))
    if culprit and culprit not in picked:
        picked.discard(min(picked))
        picked.add(culprit)
    elif pool is partitions[0] and decoy not in picked and rng.random() < _decoy_boost(decoy_share):
        picked.discard(min(picked))
        picked.add(decoy)
    return sorted(picked)


def _decoy_boost(share: float) -> float:
    return min(1.0, share * 3)


def _logged(rng: random.Random, t: Template, allocation: list[str], culprit: str | None) -> list[str]:
    """The hosts whose logs the upload carries, by slot; the culprit (if any) in the template's culprit slot."""
    slots = max(t.files.values()) + 1
    others = [n for n in allocation if n != culprit]
    chosen = rng.sample(others, slots - (1 if culprit else 0))
    if culprit is not None and t.culprit is not None:
        chosen.insert(t.culprit, culprit)
    return chosen


def _job_files(t: Template, texts: dict[str, str], logged: list[str], allocation: list[str],
               job_id: int, started: float) -> dict[str, str]:
    from datetime import datetime, timezone
    out: dict[str, str] = {}
    for name, text in texts.items():
        if name.endswith(".expected.yaml"):
            continue
        for word, slot in t.words.items():
            text = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", logged[slot], text)
        slot = t.files.get(name)
        if slot is not None:       # the host is named by the content (doctor/probing/hosts.py), never the file name
            text = text.replace("host=vm", f"host={logged[slot]}")
            text = text + ("" if text.endswith("\n") else "\n") + f"HOSTNAME={logged[slot]}\n"
            name = logged[slot] + Path(name).suffix
        out[name] = text
    from doctor.fleet.hostlist import compress
    stamp = datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds")
    out["slurm-env.txt"] = (f"# job started {stamp}\nSLURM_JOB_ID={job_id}\nSLURM_JOB_NODELIST={compress(allocation)}\n"
                            f"SLURM_JOB_NUM_NODES={len(allocation)}\n")
    return out


def _write(root: Path, index: int, files: dict[str, str], archive: bool) -> str:
    if archive:
        path = root / f"job{index:05d}.tar.gz"
        with tarfile.open(path, "w:gz") as tar:
            for name, text in files.items():
                data = text.encode()
                info = tarfile.TarInfo(f"job{index:05d}/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return str(path)
    folder = root / f"job{index:05d}"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return str(folder)


def _hostile(root: Path) -> list[str]:
    """Uploads that must be reported in one line and skipped: truncated gzip, a path escape, an empty folder."""
    truncated = root / "bad-truncated.tar.gz"
    good = io.BytesIO()
    with tarfile.open(fileobj=good, mode="w:gz") as tar:
        data = b"x" * 5000
        info = tarfile.TarInfo("node.log")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    truncated.write_bytes(good.getvalue()[:40])
    escape = root / "bad-escape.tar"
    with tarfile.open(escape, "w") as tar:
        data = b"owned\n"
        info = tarfile.TarInfo("../../escape.log")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("passwd.log")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    empty = root / "bad-empty"
    empty.mkdir(exist_ok=True)
    binary = root / "bad-binary"
    binary.mkdir(exist_ok=True)
    (binary / "core.log").write_bytes(bytes(range(256)) * 64)
    return [str(truncated), str(escape), str(empty), str(binary)]
