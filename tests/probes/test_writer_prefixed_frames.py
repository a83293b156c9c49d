"""Tracebacks whose every line carries its writer: Ray's "(Actor pid=N, ip=A) " and torch's "[rankN]: " (issue 12).

Ray's driver prints each line a worker or actor wrote behind "(ActorName pid=N[, ip=A])"; torch >= 2.2 prints a
rank's traceback behind "[rankN]:". A traceback read through those prefixes must still be a traceback: its frames
are frames, and a traceback cut before its exception line still leaves its last frame as an unexplained line.
The texts are verbatim from the cases named beside them.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from doctor.probing.lines import who
from probes.error_lines import ErrorLines
from probes.traceback_frames import TracebackFrames

# fixtures/cases/port-blocked-torchx-540-ray-exposed-ports (meta-pytorch/torchx#540): torchrun's own traceback,
# printed by Ray behind the actor that ran it, cut before its exception line
TORCHX_RAY_TRACE = """\
(CommandActor pid=2809)   File "/home/ray/anaconda3/lib/python3.9/site-packages/torch/distributed/launcher/api.py", line 236, in launch_agent
(CommandActor pid=2809)     result = agent.run()
(CommandActor pid=2809)   File "/home/ray/anaconda3/lib/python3.9/site-packages/torch/distributed/elastic/metrics/api.py", line 125, in wrapper
"""

# fixtures/format-examples/accelerate-machine-rank-duplicate: a rank's traceback through the store barrier of process-group setup
RANK_TRACE = """\
[rank8]:   File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 4142, in _store_based_barrier
[rank8]:     raise DistStoreError(  # noqa: TRY200
"""

# fixtures/cases/shm-easyr1-228: an actor's line with text after the prefix, and a bracket that is no prefix
RAY_SHM_LINE = "(Runner pid=868697) Error while creating shared memory segment /dev/shm/nccl-UmqSM9 (size 7340384)"
RAY_WITH_IP = ("(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out "
               "after 1800s while trying to connect to (172.17.0.2, 29500).")   # tests/probes/test_launch_wordings.py


def test_the_ray_actor_prefix_is_the_writer_not_the_text() -> None:
    assert who(RAY_SHM_LINE, "").body == "Error while creating shared memory segment /dev/shm/nccl-UmqSM9 (size 7340384)"
    assert who(RAY_WITH_IP, "").body.startswith("[E socket.cpp:922] [c10d] The client socket has timed out")


def test_ray_1x_prefix_without_an_actor_name_is_the_writer() -> None:
    assert who("(pid=45601) task", "").body == "task"   # Ray 1.11's logging guide, verbatim


def test_a_parenthesis_that_is_no_ray_prefix_is_kept() -> None:
    line = "(see pid=2809 in the agent log) failed"
    assert who(line, "").body == line


def test_a_ray_printed_traceback_cut_before_its_exception_keeps_its_last_frame() -> None:
    (kept,) = [f for f in parse_lines(ErrorLines, TORCHX_RAY_TRACE) if f.KIND == "log.error_line"]
    assert (kept.form, kept.origin.line) == ("traceback", 3)
    assert kept.text.startswith('File "/home/ray/anaconda3/lib/python3.9/site-packages/torch/distributed/elastic/metrics/api.py"')


def test_a_rank_prefixed_frame_of_process_group_setup_is_read() -> None:
    frames = [f for f in parse_lines(TracebackFrames, RANK_TRACE) if f.KIND == "trace.frame"]
    assert [(f.function, f.activity) for f in frames] == [("_store_based_barrier", "process_group_setup")]


def test_launch_agent_frames_are_not_process_group_setup() -> None:
    # torchrun's agent frames appear in every agent failure (a worker that crashed too): no symptom from them alone
    assert not [f for f in parse_lines(TracebackFrames, TORCHX_RAY_TRACE) if f.KIND == "trace.frame"]


# pytorch#73885 (held-out batch EV, fixtures/cases/ksb-fairscale-pytorch-73885-efa-tensorpipe-ibv-unsupported): a
# distributed test's failure as pytest reports it, every line behind pytest's "E" and spaces
PYTEST_REPORT = """\
E         File "/fsx/users/rvarm1/rvarm1/repos/pytorch/torch/distributed/rpc/api.py", line 114, in _init_rpc_states
E           _set_and_start_rpc_agent(agent)
E       RuntimeError: In operator() at tensorpipe/common/ibv.h:172 "": Operation not supported
"""


def test_pytest_e_prefix_is_the_reporter_not_the_text() -> None:
    lines = PYTEST_REPORT.splitlines()
    assert who(lines[2], "").body.startswith("RuntimeError: In operator()")
    facts = parse_lines(ErrorLines, PYTEST_REPORT, source="pytest.log", node="")
    assert [(f.get("form"), f.origin.line) for f in facts] == [("exception", 3)]


def test_a_glog_severity_letter_is_no_pytest_prefix() -> None:
    line = "E1203 06:26:06.010664 1044529 client.h:77] Terminating process"
    assert who(line, "").body == line
