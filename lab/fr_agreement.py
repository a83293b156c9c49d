"""doctor against PyTorch's own Flight Recorder analyzer (python -m torch.distributed.flight_recorder.fr_trace) on
every recorded dump set: first mismatching sequence id and culprit ranks, side by side.

    python -m lab.fr_agreement            # prints the table (markdown)

fr_trace is run twice per set: on the dumps as recorded, and on a copy whose pg_config is filled in the shape
ProcessGroupNCCL writes it ({pg name: {"name", "desc", "ranks"}}): torch 2.13's gloo recorder writes one pg_config
entry named "" for all groups, which fr_trace cannot look groups up in (KeyError). The entries are not touched
(a JSON dump, which fr_trace cannot read at all, is pickled for it).
"""
from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.safe_pickle import safe_load

REPO = Path(__file__).resolve().parent.parent
INCIDENTS = REPO / "fixtures" / "incidents"
_MISSING = re.compile(r"Not all ranks joining collective, sequence number: (\d+).*?missing ranks: \{([\d, ]*)\}", re.S)
_ERRORS = re.compile(r"Collective sequence number: (\d+) has errors.*?Culprit rank (\d+)", re.S)
_RANK = re.compile(r"(\d+)$")


@dataclass(frozen=True)
class Answer:
    seq: int                 # -1: no mismatch named
    culprits: frozenset[int]
    note: str                # what the tool said, in a few words

    def cell(self) -> str:
        if self.seq < 0:
            return self.note
        return f"#{self.seq} rank {', '.join(map(str, sorted(self.culprits)))} ({self.note})"


def fr_trace(folder: Path, *extra: str) -> Answer:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", *extra, str(folder)],
                          capture_output=True, text=True, timeout=300, env=env)
    out = proc.stdout + proc.stderr
    found = sorted([(m.start(), int(m.group(1)), {int(r) for r in m.group(2).split(",") if r.strip()}, "missing ranks")
                    for m in _MISSING.finditer(out)] +
                   [(m.start(), int(m.group(1)), {int(m.group(2))}, "culprit") for m in _ERRORS.finditer(out)])
    if found:
        _, seq, ranks, note = found[0]
        return Answer(seq, frozenset(ranks), note)
    if proc.returncode != 0:
        last = [line for line in out.splitlines() if line.strip()][-1]
        return Answer(-1, frozenset(), f"fails: {last.strip()[:70]}")
    if "cannot decide" in out:
        return Answer(-1, frozenset(), "cannot decide (dumps missing)")
    return Answer(-1, frozenset(), "no errors found")


def doctor(folder: Path) -> Answer:
    report = diagnose_files([str(folder)])
    if not report.diagnoses:
        return Answer(-1, frozenset(), "nothing found")
    top = report.diagnoses[0]
    facts = [f for f in report_facts(folder) if f.KIND == "fr.mismatch"]
    if not facts:
        return Answer(-1, frozenset(), top.title[:60])
    first = facts[0]
    culprits = frozenset(int(r) for r in first.culprits.split(",") if r.strip())
    return Answer(first.seq, culprits, first.disagreement)


def report_facts(folder: Path) -> list:
    from doctor.aggregate_flight_recorder import flight_recorder
    from doctor.probing.stream import parse_stream
    from probes.flight_recorder import FlightRecorderDump
    facts = []
    for path in sorted(folder.glob("nccl_trace_rank_*")):
        facts += parse_stream(FlightRecorderDump, path)
    return flight_recorder(facts)


def with_pg_config(src: Path, dst: Path) -> Path:
    """A copy of the dumps whose pg_config lists each group by name with its ranks, as NCCL's recorder writes it."""
    dumps = {}
    for path in src.glob("nccl_trace_rank_*"):
        raw = path.read_bytes()
        with open(path, "rb") as fh:      # fr_trace reads pickles only: a JSON dump is pickled for it
            dumps[int(_RANK.search(path.name).group(1))] = json.loads(raw) if raw[:1] == b"{" else safe_load(fh)
    members: dict[tuple[str, str], set[int]] = defaultdict(set)
    for rank, dump in dumps.items():
        for entry in dump["entries"]:
            members[tuple(entry["process_group"])].add(rank)
    world = max(max(dumps) + 1, *(len(d["pg_config"].get("", {}).get("ranks", "[]").strip("[]").split(",")) for d in
                                  dumps.values() if d["pg_config"].get("", {}).get("ranks", "[]") != "[]"), 0)
    dst.mkdir(parents=True, exist_ok=True)
    for rank, dump in dumps.items():
        config = {}
        for (name, desc), ranks in members.items():
            if desc == "default_pg":
                config[name] = {"name": name, "desc": desc, "ranks": str(list(range(world)))}
            elif rank in ranks:
                config[name] = {"name": name, "desc": desc, "ranks": str(sorted(ranks))}
        dump["pg_config"] = config
        (dst / src.joinpath(f"nccl_trace_rank_{rank}").name).write_bytes(pickle.dumps(dump))
    return dst


def dump_sets() -> list[Path]:
    return sorted(p for p in INCIDENTS.glob("fr-*") if p.is_dir())


def table() -> list[tuple[str, Answer, Answer, Answer, Answer]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for folder in dump_sets():
            fixed = with_pg_config(folder, Path(tmp) / folder.name)
            fr_fixed = fr_trace(fixed)
            if fr_fixed.seq < 0 and "Missing dump files" in fr_fixed.note:
                fr_fixed = fr_trace(fixed, "--allow-incomplete-ranks")
            rows.append((folder.name, fr_trace(folder), fr_fixed, doctor(folder), doctor(fixed)))
    return rows


def main() -> int:
    print("| dumps | fr_trace, as recorded | fr_trace, pg_config filled | doctor | doctor, pg_config filled |")
    print("|---|---|---|---|---|")
    for name, raw, fixed, doc, doc_fixed in table():
        print(f"| {name} | {raw.cell()} | {fixed.cell()} | {doc.cell()} | {doc_fixed.cell()} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
