"""Honest unknowns: an input whose error lines no rule explains is never "nothing found" (issue 12, item 3).

fixtures/unknowns/ holds ten real failures recorded here (tools/record_unknowns.py); the error-line probe and the
report's unknowns section are checked on them and on lines that only look like errors.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from doctor.diagnose import diagnose_files
from probes.error_lines import classify

REPO = Path(__file__).resolve().parents[1]
UNKNOWNS = sorted((REPO / "fixtures" / "unknowns").glob("*.log"))


def test_there_are_ten_recorded_unknowns() -> None:
    assert len(UNKNOWNS) >= 10


@pytest.mark.parametrize("log", UNKNOWNS, ids=[p.stem for p in UNKNOWNS])
def test_unexplained_failure_lists_its_lines_and_the_differential(log: Path) -> None:
    report = diagnose_files([str(log)])
    assert not report.healthy
    lines = report.unexplained_lines
    assert lines and all(e.source.endswith(log.name) and e.line > 0 for e in lines)
    text = log.read_text(encoding="utf-8").splitlines()
    assert all(text[e.line - 1].strip().startswith(e.text[:40]) for e in lines), "file:line points at the line quoted"
    last_exception = next(t for t in reversed(text) if classify(t) == "exception")
    assert any(e.text == last_exception.strip()[:300] for e in lines), "the traceback's last line is listed"
    if not any(d.confidence >= 0.5 for d in report.diagnoses):
        assert report.differential is not None and 3 <= len(report.differential.candidates) <= 5
        assert report.differential.upload


def test_unknown_in_text_json_and_exit_code(doctor_cli) -> None:
    log = REPO / "fixtures" / "unknowns" / "linear-shape-mismatch.log"
    text = doctor_cli("analyze", str(log))
    assert text.returncode == 1, "an unexplained failure is a finding, not a clean bill"
    assert "No known cause" not in text.stdout and "No rule explains these errors" in text.stdout
    assert "linear-shape-mismatch.log:26" in text.stdout and "Upload next" in text.stdout
    data = json.loads(doctor_cli("analyze", "--json", str(log)).stdout)
    assert all(d["rules"] == [] for d in data["diagnoses"]), "only causes the symptom suggests, no rule behind them"
    # every cause shown is a guess from the symptom (titled so), and a large share stays on no cause shown. How large
    # is fitted: the case base holds only failures with a taxonomy cause (a shape mismatch in the user's own model is
    # none), so the crash guess known_software_bug took 0.50 and the unexplained share 0.43 at the eighth stop's refit
    # (0.41 / 0.51 before it). Capping guesses below 0.5 was tried: CV ECE 0.039 -> 0.051, not taken.
    assert all(d["title"].startswith("possible for crash") for d in data["diagnoses"])
    assert data["unexplained"] >= 0.3
    assert data["unexplained_lines"][0]["line"] == 26 and "mat1 and mat2" in data["unexplained_lines"][0]["text"]
    assert data["differential"]["symptom"] == "crash" and data["differential"]["causes"]


@pytest.mark.parametrize(("line", "form"), [
    ("node1:3012:3012 [1] NCCL WARN Cuda failure 'invalid device function'", "nccl_warn"),
    ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970", "exception"),
    ("ValueError: loss is nan at step 3 on rank 1", "exception"),
    ("KeyError: 'label'", "exception"),
    ("Segmentation fault (core dumped)", "signal"),
    ("ERROR: ld.so: object 'libnccl-net.so' cannot be preloaded", "error"),
    ("ssh: connect to host node2 port 22: Connection refused; pdsh@node1: node2: ssh exited with exit code 255 failed",
     "failed"),
    ("dso-s1-r1-a100-03:2330:2658 [2] NCCL INFO bootstrap.cc:270 -> 2", "nccl_trace"),
    ("[W1008 23:40:22.836678340 socket.cpp:767] [c10d] The client socket has failed to connect to "
     "[job-01k72wn5f8waqw7d81mfggagn4.internal]:50745 (errno: 22 - Invalid argument).", "failed"),   # warning level counts
    ("Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared memory (shm), "
     "please check whether use_shared_memory is set and storage space in /dev/shm is enough", "error"),   # Paddle#34725
    # UCX's ucs_fatal() prefixes "Fatal: " after the source location (ucx#7785, verbatim; ucx#3087's older "UCX Fatal:")
    ("[mu01:17626:0:17626]       ud_ep.c:270  Fatal: UD endpoint 0x2345930 to <no debug data>: unhandled timeout error",
     "error"),
    ("Mon Dec 10 08:18:05 2018[1,8]<stderr>:[hpc-polar-01-vm001:13210:0:13210]    ud_iface.c:732  UCX Fatal: transport "
     "error: Endpoint timeout", "error"),
    # Open MPI's help text and its error field (ompi#12470, held-out batch CG)
    ("Open MPI tried to bind a new process, but something went wrong.  The", "failed"),
    ('  Error message:     hwloc_set_cpubind returned "Error" for bitmap "2,114"', "failed"),
    # XLA's words: "replica 0" is an identifier, not a counter of none (flax#4942, held-out batch CD)
    ("E0912 23:44:51.552719 2536982 pjrt_stream_executor_client.cc:3008] Execution of replica 0 failed: INTERNAL: NCCL "
     "operation ncclAllReduce( send_buffer.opaque(), recv_buffer.opaque(), ToNcclCount(dtype, count), nccl_dtype, "
     "ToNcclReduction(reduction_kind), comm_, se::gpu::AsGpuStreamValue(stream)) failed: invalid argument", "failed"),
    # an exception named with its package in the middle of a JVM log line (cudf-spark#6572, held-out batch EW)
    ("[2022-09-19T07:13:29.517Z] 22/09/19 07:13:29 WARN TaskSetManager: Lost task 1.0 in stage 5.0 (TID 15) "
     "(10.233.91.25 executor 0): org.openucx.jucx.UcxException: No resources are available to initiate the operation",
     "exception"),
    # a library's own version check (nixl#1023, held-out batch EW)
    ("UCP API version is incompatible: required >= 1.19, actual 1.16.0", "error"),
    # a counter that is not zero stays a failure line
    ("Total: 28, Passed: 26, Failed: 2, Waived: 0", "failed"),
])
def test_error_looking_lines_are_kept(line: str, form: str) -> None:
    assert classify(line) == form


@pytest.mark.parametrize("line", [
    "node1:3012:3012 [1] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.",
    "/x/functional_tensor.py:368: UserWarning: Failed to initialize NumPy: No module named 'numpy'",
    "# Out of bounds values : 0 OK",
    '  File "/x/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
    "epoch 1 step 10 loss 2.31 errors: 0",
    "doctor: wrote /tmp/tmpk0h2sx6b/bundle.tar.gz (7 outputs, 11 probes skipped, 0 failed); read it anywhere with "
    "`doctor analyze /tmp/tmpk0h2sx6b/bundle.tar.gz`",   # a counter of none (healthy-lab-doctor-collect)
    '    echo "SLURM SCRIPT ERROR:"',    # a job script's echo (pytorch-experiment-template's train.slrm), not its output
    "node1:23458:23458 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct",
    "node1:2228637:2230195 [3] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA",
    # torch 2.13's TCPStore at a clean shutdown, info level (recorded here: healthy-lab-torchrun-2rank-info)
    "[I1203 06:26:06.010664758 TCPStoreLibUvBackend.cpp:1354] [c10d] uv_loop_close failed with:-16 errn:EBUSY "
    "desc:resource busy or locked",
    "Fatal: not a git repository (or any of the parent directories): .git",   # only after a source location: UCX's form
    # rdma(8) on this machine, no RDMA netlink: no RDMA devices here (recorded: healthy-lab-doctor-collect's bundle)
    "Failed to open NETLINK_RDMA socket",
    "Total: 28, Passed: 28, Failed: 0, Waived: 0",   # gdrcopy's sanity summary (its README, held-out batch DF)
    "Test Error: ",   # PyTorch's quickstart tutorial's evaluation heading (pytorch-multi-GPU-training-tutorial, batch FC)
])
def test_lines_that_only_look_like_errors_are_not(line: str) -> None:
    assert classify(line) == ""


def test_markdown_report_lists_the_unknowns() -> None:
    from doctor.report.markdown import render
    report = diagnose_files([str(REPO / "fixtures" / "unknowns" / "module-not-found-apex.log")])
    text = render(report)
    assert "No known cause" not in text and "## Error lines no rule explains" in text
    assert "module-not-found-apex.log:" in text and "No module named 'apex'" in text and "Upload next:" in text


def _error_lines(path: Path) -> list[tuple[str, int]]:
    from doctor.probing.contract import parse_lines
    from probes.error_lines import ErrorLines
    return [(f.form, f.origin.line) for f in parse_lines(ErrorLines, path.read_text(encoding="utf-8"))]


def test_a_traceback_cut_before_its_exception_keeps_its_last_frame() -> None:
    """Pasted fragments (slowfast#337, torchdata#1142) end in frames: the last frame is where it failed."""
    cut = REPO / "fixtures" / "cases" / "port-in-use-slowfast-337" / "input" / "traceback.txt"
    assert _error_lines(cut) == [("traceback", 3)]
    header_only = REPO / "fixtures" / "cases" / "port-blocked-sglang-3794" / "input" / "head_node.log"
    assert _error_lines(header_only) == [("traceback", 8)]
    whole = REPO / "fixtures" / "unknowns" / "linear-shape-mismatch.log"
    assert "traceback" not in {form for form, _ in _error_lines(whole)}, "a complete traceback ends in its exception"


def test_nccl_return_code_trace_is_kept_only_without_a_warn() -> None:
    """NCCL's `file.cc:N -> 2` trace is the failure when nothing else was captured (nccl#1000); next to the WARN
    that names the failed call it adds nothing."""
    bare = REPO / "fixtures" / "cases" / "wrong_socket_ifname-nccl-1000" / "input" / "nccl_debug.log"
    assert [line for form, line in _error_lines(bare) if form == "nccl_trace"] == [7, 8, 9]   # line 10 repeats line 7 (another rank)
    with_warn = REPO / "fixtures" / "logs" / "nccl-shm-no-space.log"
    forms = {form for form, _ in _error_lines(with_warn)}
    assert "nccl_warn" in forms and "nccl_trace" not in forms
