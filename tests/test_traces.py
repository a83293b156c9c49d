"""Profiler traces: the stream probe contract, per-step figures, cross-rank skew, and the recorded DDP runs."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO, run_doctor
from doctor.diagnose import diagnose_files
from doctor.facts.perf import TraceRank, TraceStep
from doctor.probing.stream import parse_stream
from doctor.traces.timebits import TimeBits
from probes.kineto_trace import KinetoTrace

CPU = REPO / "fixtures" / "traces" / "cpu"
GPU = REPO / "fixtures" / "traces" / "gpu"
SCENARIOS = {"cpu/slow_rank": "straggler", "cpu/slow_dataloader": "dataloader_bottleneck",
             "cpu/comm_exposed": "comm_exposed", "cpu/desync": "collective_desync", "gpu/slow_rank": "straggler",
             "gpu/slow_dataloader": "dataloader_bottleneck", "gpu/no_nvlink": "no_nvlink_topology"}


def kineto(events: list[dict], rank: int = 0, gpus: tuple[str, ...] = ()) -> dict:
    """A trace object laid out as Kineto writes it: metadata first, then traceEvents."""
    return {"schemaVersion": 1, "deviceProperties": [{"id": i, "name": n} for i, n in enumerate(gpus)],
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2}, "traceEvents": events}


def op(name: str, ts: float, dur: float, cat: str = "cpu_op", **args) -> dict:
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args}


def kernel(name: str, ts: float, dur: float, corr: int, stream: int = 7, cat: str = "kernel") -> dict:
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr}}


def launch(ts: float, corr: int) -> dict:
    return op("cudaLaunchKernel", ts, 2, cat="cuda_runtime", correlation=corr)


def write(path: Path, trace: dict, compress: bool = False) -> Path:
    data = json.dumps(trace, indent=2).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-5000, 600_000), st.integers(0, 300_000)), max_size=12),
       st.lists(st.tuples(st.integers(-5000, 600_000), st.integers(0, 300_000)), max_size=12),
       st.integers(-6000, 900_000), st.integers(0, 900_000))
def test_timebits_measure_unions_and_overlaps(a: list, b: list, lo: int, width: int) -> None:
    bits_a, bits_b, set_a, set_b = TimeBits(), TimeBits(), set(), set()
    for intervals, bits, seen in ((a, bits_a, set_a), (b, bits_b, set_b)):
        for start, length in intervals:
            bits.add(start, start + length)
            seen.update(range(start, start + length))
    hi = lo + width
    window = range(lo, hi)
    assert bits_a.count() == len(set_a)
    assert bits_a.count(lo, hi) == len(set_a.intersection(window))
    assert bits_a.count_and(bits_b) == len(set_a & set_b)
    assert bits_a.count_minus(bits_b, lo=lo, hi=hi) == len((set_a - set_b).intersection(window))
    assert bits_a.union(bits_b).count() == len(set_a | set_b)
    assert bits_a.minus(bits_b).count() == len(set_a - set_b)


def two_gpu_steps() -> list[dict]:
    """Two steps of 1000 us. Step 1: data 300 us, then a 400 us GEMM and a 300 us all-reduce of which 100 us
    overlap the GEMM. Step 2 launches its kernel 500 us in, after a 400 us DataLoader wait."""
    return [
        op("ProfilerStep#1", 1000, 1000, cat="user_annotation"),
        op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1000, 250, cat="user_annotation"),
        launch(1290, 11), kernel("sm90_xmma_gemm_f32", 1300, 400, 11),
        launch(1295, 12), kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                 1600, 300, 12, stream=20),
        op("ProfilerStep#2", 2000, 1000, cat="user_annotation"),
        op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 2000, 400, cat="user_annotation"),
        launch(2490, 21), kernel("sm90_xmma_gemm_f32", 2500, 200, 21),
        launch(2495, 22), kernel("Memcpy HtoD (Pageable -> Device)", 2700, 100, 22, cat="gpu_memcpy"),
    ]


def test_gpu_step_figures_follow_the_launching_step(tmp_path: Path) -> None:
    facts = parse_stream(KinetoTrace, write(tmp_path / "t.json", kineto(two_gpu_steps(), gpus=("NVIDIA H100 80GB HBM3",))))
    steps = {f.step: f for f in facts if isinstance(f, TraceStep)}
    one, two = steps[1], steps[2]
    assert (one.device, one.compute_ms, one.comm_ms, one.exposed_comm_ms) == ("gpu", 0.4, 0.3, 0.2)
    assert one.idle_before_ms == 0.3 and one.dataloader_ms == 0.25
    assert two.idle_before_ms == 0.6          # from the end of step 1's all-reduce (1900) to 2500
    assert two.h2d_ms == 0.1 and two.compute_ms == 0.2 and two.dataloader_frac == 0.4
    assert "ncclDevKernel_AllReduce_Sum_f32_RING_LL" in one.top_comm
    rank = next(f for f in facts if isinstance(f, TraceRank))
    # HTA's window drops kernels launched in the last step: step 1 only, 1300..1900
    assert rank.hta_idle_pct == 0.0 and rank.hta_compute_pct == pytest.approx(66.67, abs=0.01)
    assert rank.overlap_pct == pytest.approx(33.33, abs=0.01)


def test_gzip_and_plain_json_give_the_same_facts(tmp_path: Path) -> None:
    plain = tmp_path / "rank0.json"
    plain.write_bytes(gzip.decompress((CPU / "healthy" / "rank0.json.gz").read_bytes()))
    as_dicts = [[f.as_dict() for f in parse_stream(KinetoTrace, p)] for p in (plain, CPU / "healthy" / "rank0.json.gz")]
    assert as_dicts[0] == as_dicts[1] and len(as_dicts[0]) > 5


def test_a_trace_is_recognised_by_content_and_never_scanned_as_a_log(tmp_path: Path) -> None:
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB"
    events = two_gpu_steps() + [op(oom, 1100, 5, cat="user_annotation")]
    write(tmp_path / "notes.txt", kineto(events))
    (tmp_path / "trace.json").write_text(oom + "\n")
    report = diagnose_files([str(tmp_path / "notes.txt")])
    assert [r.kinds for r in report.inputs] == [["kineto_trace"]]
    assert not any(f.KIND == "oom.event" for f in report.facts)
    log = diagnose_files([str(tmp_path / "trace.json")])
    assert any(f.KIND == "oom.event" for f in log.facts)


def test_truncated_trace_gives_partial_figures_and_says_so(tmp_path: Path) -> None:
    whole = gzip.decompress((CPU / "slow_rank" / "rank0.json.gz").read_bytes())
    cut = tmp_path / "rank0.json.gz"
    cut.write_bytes(gzip.compress(whole)[: len(gzip.compress(whole)) * 2 // 3])
    result = run_doctor("analyze", str(cut), "--json")
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert any("truncated" in p.get("reason", "") or "damaged" in p.get("reason", "") for p in report["probes"])
    assert "Traceback" not in result.stderr


def test_unreadable_trace_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "rank0.json").write_text('{"schemaVersion": 1, "traceEvents": [{"ph": "X", "ts": 1,, garbage')
    result = run_doctor("analyze", str(tmp_path / "rank0.json"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not a readable trace" in result.stderr


@pytest.mark.parametrize("scenario,cause", sorted(SCENARIOS.items()))
def test_recorded_fault_is_the_top_diagnosis(scenario: str, cause: str) -> None:
    report = diagnose_files([str(CPU.parent / scenario)])
    assert report.diagnoses and report.diagnoses[0].cause == cause, [(d.cause, d.confidence) for d in report.diagnoses]
    text = " ".join(e.text + " " + e.note for d in report.diagnoses[:1] for e in d.evidence)
    assert "step" in text and "rank" in text


@pytest.mark.parametrize("healthy", ["cpu/healthy", "gpu/healthy", "gpu/legacy_healthy"])
def test_recorded_healthy_run_has_no_confident_diagnosis(healthy: str) -> None:
    report = diagnose_files([str(CPU.parent / healthy)])
    assert all(d.confidence < 0.5 for d in report.diagnoses), [(d.cause, d.confidence) for d in report.diagnoses]
    ranks = [f for f in report.facts if isinstance(f, TraceRank)]
    assert sorted(f.rank for f in ranks) == [0, 1] and all(f.steps == 5 for f in ranks)


def test_old_and_new_nccl_kernel_names_and_categories_give_the_same_figures() -> None:
    figures = {}
    for variant in ("healthy", "legacy_healthy"):
        facts = diagnose_files([str(GPU / variant)]).facts
        figures[variant] = sorted((f.rank, f.step, f.compute_ms, f.comm_ms, f.exposed_comm_ms, f.idle_ms)
                                  for f in facts if isinstance(f, TraceStep))
    assert figures["healthy"] == figures["legacy_healthy"] and len(figures["healthy"]) == 10
    assert all(comm > 0 for *_, comm, _, _ in figures["healthy"])


def test_cli_names_the_straggler_rank_and_step(tmp_path: Path) -> None:
    shutil.copytree(CPU / "slow_rank", tmp_path / "job")
    result = run_doctor("analyze", str(tmp_path / "job"), "--json")
    assert result.returncode == 1, result.stderr
    top = json.loads(result.stdout)["diagnoses"][0]
    assert top["cause"] == "straggler" and "rank 1" in top["title"]
    assert any("step" in e["text"] and "gloo:all_reduce" in e["text"] for e in top["evidence"])


def test_trace_behind_a_huge_header_is_read_through_ijson(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import doctor.traces.ijson_reader as ijson_reader
    import doctor.traces.reader as reader
    original = ijson_reader.open_with_ijson
    trace = kineto(two_gpu_steps(), gpus=("NVIDIA H100 80GB HBM3",) * 64)
    path = write(tmp_path / "rank3.json", trace)
    normal = [f.as_dict() for f in parse_stream(KinetoTrace, path) if isinstance(f, TraceStep)]
    calls = []
    monkeypatch.setattr(reader, "MAX_VALUE", 1024)         # deviceProperties no longer fits the window ...
    monkeypatch.setattr(reader, "CHUNK", 128)              # ... which now grows in small reads
    monkeypatch.setattr(ijson_reader, "open_with_ijson", lambda *a: calls.append(1) or original(*a))
    fallback = [f.as_dict() for f in parse_stream(KinetoTrace, path) if isinstance(f, TraceStep)]
    assert calls == [1] and fallback == normal and len(normal) == 2


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.binary(min_size=0, max_size=40))
def test_damaged_traces_give_facts_or_a_refusal_never_a_crash(tmp_path_factory, cut: int, junk: bytes) -> None:
    from doctor.probing.stream import StreamRefused
    data = json.dumps(kineto(two_gpu_steps())).encode()
    cut = cut % len(data)
    path = tmp_path_factory.mktemp("damaged") / "rank0.json"
    path.write_bytes(data[:cut] + junk + data[cut + len(junk):])
    try:
        facts = parse_stream(KinetoTrace, path)
    except StreamRefused as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert all(f.KIND.startswith(("trace.", "probe.")) for f in facts)


def test_rank_traces_read_side_by_side_give_the_same_report(monkeypatch: pytest.MonkeyPatch) -> None:
    import doctor.probing.stream as stream
    one_by_one = diagnose_files([str(CPU / "slow_rank"), str(GPU / "no_nvlink")])
    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)            # worker processes even for small files
    side_by_side = diagnose_files([str(CPU / "slow_rank"), str(GPU / "no_nvlink")])
    assert [f.as_dict() for f in side_by_side.facts] == [f.as_dict() for f in one_by_one.facts]
    assert [(d.cause, d.confidence) for d in side_by_side.diagnoses] == [(d.cause, d.confidence) for d in one_by_one.diagnoses]
    assert [str(f.origin) for f in side_by_side.facts] == [str(f.origin) for f in one_by_one.facts]


def test_every_fact_kind_is_registered_once() -> None:
    from collections import Counter

    from doctor.facts import _ALL, FACT_KINDS
    twice = [kind for kind, n in Counter(cls.KIND for cls in _ALL).items() if n > 1]
    assert not twice and len(FACT_KINDS) == len(_ALL)
    assert {"trace.step", "trace.rank", "trace.straggler", "gpu.utilisation", "memory.snapshot"} <= set(FACT_KINDS)


REAL_GPU = REPO / "fixtures" / "cases"


def test_real_cuda_traces_from_an_h200() -> None:
    """Real torch 2.11 traces with CUDA activity (lab/gpu_record.py, one rank of DDP over NCCL): the one whose
    DataLoader sleeps in __getitem__ is dataloader_bottleneck by the trace's own rules; the one with four workers and
    kernels back to back raises nothing."""
    slow = diagnose_files([str(REAL_GPU / "dataloader-lab-gpu-slow-getitem" / "input" / "rank0.json.gz")]).diagnoses
    assert slow[0].cause == "dataloader_bottleneck" and "PERF001" in slow[0].rules
    healthy = diagnose_files([str(REAL_GPU / "healthy-lab-gpu-ddp-trace" / "input" / "rank0.json.gz")])
    assert healthy.healthy and not [d for d in healthy.diagnoses if d.confidence >= 0.5]
