"""Property tests: no parser raises, whatever text it is given.

Every LINE_PROBE and DOCUMENT_PROBE gets random text built from its own vocabulary (triggers and
format fragments, so the inputs reach feed()/parse() and not only wants()/sniff()), random bytes
decoded with errors=replace, very long lines and UTF-8 cut mid-character; the same text also goes
through gather_files() on a real file. (tests/test_scan_paths.py: every scan path picks the same lines.)
Example counts are kept small: the suite shares two cores.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doctor.errors import InputError
from doctor.probing.contract import parse_document, parse_lines
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES

FORMAT_FRAGMENTS = (
    "GPU0", "GPU1", "\tX \t", "NV4", "PIX", "PXB", "SYS", "NODE", "CPU Affinity", "NUMA Affinity", "mlx5_0",
    "Link 0: 25.781 GB/s", "Link 1: <inactive>", "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234)",
    "root@worker-0:/app# ", "$ ", "hostname", "cat /etc/hosts", "echo $MASTER_ADDR", "127.0.0.1", "::1", "10.0.0.2",
    "unlimited", "64", "max locked memory       (kbytes, -l) ", "[rank3]:", "host-1:1234:5678 [0] ", "[default0]:",
    "2.18.5", "12.1", "29500", "ms", "GiB", "%", "=", ":", "(", ")", "[", "]", "\\", "'", '"', "-1", "0x1f", "nan",
    "torchrun --nnodes=2 --nproc_per_node=8 train.py", "ucx_perftest -t tag_bw -m cuda 10.0.0.2",
)
VOCABULARY = tuple(sorted({t for probe in LINE_PROBES for t in probe.triggers})) + FORMAT_FRAGMENTS
EXAMPLES = int(os.environ.get("DOCTOR_FUZZ_EXAMPLES", "25"))   # raise it for a longer local run
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

fragments = st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=12))
lines = st.lists(fragments, max_size=8).map(" ".join)
log_text = st.lists(lines, max_size=25).map("\n".join)
noise = st.binary(max_size=2000).map(lambda b: b.decode("utf-8", "replace"))
long_line = st.tuples(st.sampled_from(VOCABULARY), st.integers(5_000, 40_000)).map(lambda t: "x" * t[1] + t[0] + "y" * 100)
cut_utf8 = st.tuples(log_text, st.integers(0, 50)).map(lambda t: t[0].encode()[: max(0, len(t[0].encode()) - t[1])]
                                                         .decode("utf-8", "replace"))
any_text = st.one_of(log_text, noise, long_line, cut_utf8)


@pytest.mark.parametrize("probe", LINE_PROBES, ids=lambda p: p.name)
@SETTINGS
@given(text=any_text)
def test_line_probe_never_raises(probe, text: str) -> None:
    for fact in parse_lines(probe, text, source="fuzz.log"):
        assert fact.origin.source == "fuzz.log"


@pytest.mark.parametrize("probe", DOCUMENT_PROBES, ids=lambda p: p.name)
@SETTINGS
@given(text=any_text)
def test_document_probe_never_raises(probe, text: str) -> None:
    probe.sniff(text[:65536])
    parse_document(probe, text, source="fuzz.txt")


@SETTINGS
@given(data=st.one_of(any_text.map(lambda t: t.encode()), st.binary(max_size=4000)))
def test_gather_files_reads_any_file_or_says_why_not(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload.log"
        path.write_bytes(data)
        try:
            gathered = gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES)
        except InputError as err:
            assert str(err).startswith("nothing readable")
        else:
            assert [i.status for i in gathered.inputs] == ["ok"]


def test_vocabulary_reaches_the_parsers() -> None:
    """The strategies above are only useful if they make probes emit facts."""
    # triggers three to a line, then each format fragment on a line of its own (a command line is one): the
    # grouping of sorted triggers changes whenever a probe gains one, so the count must not rest on it alone
    text = "\n".join([" ".join(VOCABULARY[i:i + 3]) for i in range(0, len(VOCABULARY), 3)] + list(FORMAT_FRAGMENTS))
    emitting = {probe.name for probe in LINE_PROBES if parse_lines(probe, text)}
    assert len(emitting) >= len(LINE_PROBES) // 3, emitting   # triggers alone seldom complete a line of the later, format-specific probes


@SETTINGS
@given(line=lines)
def test_router_agrees_with_every_probes_wants(line: str) -> None:
    from doctor.probing.contract import ParseContext
    from doctor.probing.route import router
    probes = [cls(ParseContext("r")) for cls in LINE_PROBES]
    assert router(probes)(line) == [p for p in probes if p.wants(line)]
