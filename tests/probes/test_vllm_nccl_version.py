"""vLLM and SGLang name the NCCL library they loaded ('vLLM is using nccl==2.26.2', 'sglang is using nccl==2.21.5'):
the NCCL version a known bug or a version skew is judged on where no 'NCCL version' banner was posted. The inputs are
TRL#3706's verbatim vllm-serve log and SGLang#3794's head-node log."""
from __future__ import annotations

from pathlib import Path

from doctor.known_bugs import _versions
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
LOG = CASES / "rank-trl-3706" / "input" / "vllm_serve.log"


def test_vllm_pynccl_line_gives_the_nccl_version() -> None:
    facts = gather_files([str(LOG)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    assert {(f.name, f.version) for f in facts if f.KIND == "pkg.version"} == {("nccl", "2.26.2")}
    assert _versions(facts, "nccl") == ["2.26.2"]


def test_sglang_says_it_the_same_way() -> None:
    facts = gather_files([str(CASES / "port-blocked-sglang-3794" / "input")], LINE_PROBES, DOCUMENT_PROBES,
                         STREAM_PROBES).facts
    assert _versions(facts, "nccl") == ["2.21.5"]
