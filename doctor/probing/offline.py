"""Read uploaded artifacts: every input file through the document probes that recognise it and the line probes.

Returns facts plus what was read, so the report can list inputs and probe outcomes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from doctor.errors import InputError
from doctor.printable import printable
from doctor.probing.bundle import FileHint, read_manifests
from doctor.facts import Fact
from doctor.facts.status import ProbeStatus
from doctor.probing.contract import DocumentProbe, LineProbe, ParseContext
from doctor.probing.inputs import InputFile, Workspace, expand, is_binary, read_head, read_upto
from doctor.probing.lines import without_colour
from doctor.probing.route import router
from doctor.probing.scan import SAMPLE_ALL_BELOW, scan_lines
from doctor.probing.stream import UNREADABLE, StreamJob, StreamProbe, claims, read_many, refusal_reason


@dataclass
class InputRecord:
    path: str
    size: int
    kinds: list[str]
    status: str = "ok"        # ok | skipped
    reason: str = ""

    def __post_init__(self) -> None:      # file and member names from an upload may hold ESC or newlines
        self.path, self.reason = printable(self.path), printable(self.reason)


@dataclass
class Gathered:
    facts: list[Fact] = field(default_factory=list)
    inputs: list[InputRecord] = field(default_factory=list)


def gather_files(paths: list[str], line_probes: tuple[type[LineProbe], ...],
                 document_probes: tuple[type[DocumentProbe], ...],
                 stream_probes: tuple[type[StreamProbe], ...] = ()) -> Gathered:
    """Parse every file under paths. Raises InputError when nothing at all could be read."""
    workspace = Workspace()
    try:
        files = expand(paths, workspace)
        out = Gathered()
        hints = read_manifests(files)           # doctor bundles: node name, parser per output, probe outcomes
        pending: list[StreamJob] = []           # traces and snapshots, read after the rest (doctor/probing/stream.py)
        for item in files:
            if item.label in hints.manifests:
                out.inputs.append(InputRecord(item.label, item.path.stat().st_size, ["doctor_manifest"]))
                continue
            job = _guarded(item, hints, line_probes, document_probes, out, stream_probes)
            if job:
                pending.append(job)
        _stream_all(pending, out)
        out.facts.extend(hints.statuses)
    finally:
        workspace.remove()
    if not files:
        raise InputError(f"{' '.join(paths)}: no files to analyze")
    readable = [r for r in out.inputs if r.status == "ok"]
    if not readable:
        reasons = "; ".join(f"{r.path}: {r.reason}" for r in out.inputs[:3])
        raise InputError(f"nothing readable to analyze ({reasons})")
    return out


def _guarded(item: InputFile, hints, line_probes: tuple[type[LineProbe], ...],
             document_probes: tuple[type[DocumentProbe], ...], out: Gathered,
             stream_probes: tuple[type[StreamProbe], ...]) -> StreamJob | None:
    """_gather_one, with an input that breaks a parser refused on its own line and its partial facts dropped."""
    facts, inputs = len(out.facts), len(out.inputs)
    try:
        return _gather_one(*hints.apply(item), line_probes, document_probes, out, stream_probes)
    except UNREADABLE as exc:
        del out.facts[facts:], out.inputs[inputs:]
        _skip(out, item, item.size if item.size >= 0 else item.path.stat().st_size, refusal_reason(exc))
        return None


def _gather_one(item: InputFile, hint: FileHint | None, line_probes: tuple[type[LineProbe], ...],
                document_probes: tuple[type[DocumentProbe], ...], out: Gathered,
                stream_probes: tuple[type[StreamProbe], ...] = ()) -> StreamJob | None:
    if item.skipped:
        _skip(out, item, item.size, item.skipped)
        return None
    size = item.path.stat().st_size
    head_bytes = read_head(item)
    if not head_bytes.strip():
        _skip(out, item, size, "empty file")
        return None
    streamer = claims(stream_probes, head_bytes)
    if streamer:                      # a trace or snapshot: read by its stream probe alone, never as a log
        return StreamJob(streamer, str(item.path), item.label, item.node, size)
    if is_binary(head_bytes):
        _skip(out, item, size, "binary content, not a log or text artifact")
        return None
    head = without_colour(head_bytes.decode("utf-8", "replace"))
    kinds: list[str] = []
    mode = hint.mode if hint else "file"
    for probe_cls in document_probes:
        if (probe_cls.sniff(head) or (hint and hint.parser == probe_cls.name)) and size <= probe_cls.max_bytes:
            ctx = ParseContext(source=item.label, node=item.node, probe=probe_cls.name, mode=mode)
            text = without_colour(_read_text(item, probe_cls.max_bytes))
            probe_cls().parse(text, ctx)
            out.facts.extend(ctx.facts)
            kinds.append(probe_cls.name)
    kinds.extend(_scan(item, line_probes, out, mode))
    out.inputs.append(InputRecord(item.label, size, kinds or ["text"]))
    return None


def _scan(item: InputFile, line_probes: tuple[type[LineProbe], ...], out: Gathered, mode: str = "file") -> list[str]:
    contexts = [ParseContext(source=item.label, node=item.node, probe=cls.name, mode=mode) for cls in line_probes]
    probes = [cls(ctx) for cls, ctx in zip(line_probes, contexts)]
    big = not item.compressed and item.path.stat().st_size >= SAMPLE_ALL_BELOW
    sampled = [p for p in probes if big and p.sampled]
    full = [p for p in probes if p not in sampled]
    wanting = router(full)
    triggers = [t for probe in full for t in probe.triggers]
    for line_no, line, from_sample in scan_lines(item, triggers, [t for probe in sampled for t in probe.triggers]):
        for probe in (p for p in sampled if p.wants(line)) if from_sample else wanting(line):
            probe.feed(line_no, line)
    for probe in probes:
        probe.finish()
    used = []
    for probe, ctx in zip(probes, contexts):
        if ctx.facts:
            out.facts.extend(ctx.facts)
            used.append(probe.name)
    return used


def _stream_all(jobs: list[StreamJob], out: Gathered) -> None:
    for job, (facts, refusal) in zip(jobs, read_many(jobs)):
        if refusal:
            out.inputs.append(InputRecord(job.label, job.size, [], "skipped", refusal))
            out.facts.append(ProbeStatus(node=job.node, probe=job.probe.name, status="failed",
                                         reason=printable(f"{job.label}: {refusal}")))
            continue
        out.facts.extend(facts)
        out.inputs.append(InputRecord(job.label, job.size, [job.probe.name]))


def _read_text(item: InputFile, cap: int) -> str:
    import gzip
    opener = gzip.open if item.compressed else open
    try:
        with opener(item.path, "rb") as fh:
            return read_upto(fh, cap).decode("utf-8", "replace")
    except OSError:
        return ""


def _skip(out: Gathered, item: InputFile, size: int, reason: str) -> None:
    out.inputs.append(InputRecord(item.label, size, [], "skipped", reason))
    out.facts.append(ProbeStatus(node=item.node, probe="input", status="skipped",
                                 reason=printable(f"{item.label}: {reason}")))
