"""Lines that look like failures and say of themselves they are none, and a host name that is a slot count
(issue 12, held-out batches CL and CM; each scored before this reading).

Real text:
- NVIDIA/nccl#2397's working run (fixtures/cases/healthy-nccl-2397-roce-2node-4rank-allreduce): NCCL's RAS socket on
  localhost:28028 taken by another rank of the node; NET005 read it as the job's port in use (port_in_use 0.99).
- g-adopt#219 (fixtures/cases/healthy-g-adopt-219-ompi-memory-bind-warning): Open MPI's memory-binding help block, "This
  is a warning only; your job will continue"; its lines made a crash (known_software_bug 0.59).
- athena#139 (fixtures/cases/bug-athena-139-horovod-ssh-localhost-slots-old-openmpi): 'ssh: Could not resolve hostname
  localhost:4' - horovodrun's host:slots reached ssh through an old mpirun; NET004 read an unresolvable master address.
"""
from __future__ import annotations

from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.probing.contract import parse_lines
from probes.error_lines import ErrorLines, classify
from probes.launch_errors import LaunchErrors
from probes.nccl_errors import NcclErrors
from probes.remote_shell import RemoteShell

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"
RAS_BIND = ("[2026-09-09 11:29:56] ubuntu2:321049:321049 [0] ras/client_support.cc:181 NCCL WARN Call to bind failed: "
            "Address already in use\n")
BOOTSTRAP_BIND = "node1:1234:1234 [0] misc/socket.cc:434 NCCL WARN Call to bind failed : Address already in use\n"
OMPI_WARNING_ONLY = ("--------------------------------------------------------------------------\n"
                     "WARNING: Open MPI tried to bind a process but failed.  This is a\n"
                     "warning only; your job will continue, though performance may\n"
                     "be degraded.\n"
                     "\n"
                     "  Local host:        f975c993487e\n"
                     "  Error message:     failed to bind memory\n"
                     "--------------------------------------------------------------------------\n")
OMPI_ABORT = ("--------------------------------------------------------------------------\n"
              "Open MPI tried to bind a new process, but something went wrong.  The\n"
              "process was killed without launching the target application.  Your job\n"
              "will now abort.\n"
              "\n"
              "  Error message:     hwloc_set_cpubind returned \"Error\" for bitmap \"2,114\"\n")
SSH_SLOTS = "ssh: Could not resolve hostname localhost:4: Temporary failure in name resolution\n"
SSH_HOST = "ssh: Could not resolve hostname node9: Name or service not known\n"


def test_nccl_ras_socket_taken_is_a_notice() -> None:
    assert classify(RAS_BIND) == ""
    assert parse_lines(NcclErrors, RAS_BIND) == []
    assert [f for f in parse_lines(LaunchErrors, RAS_BIND) if f.KIND == "net.bind_error"] == []
    # NCCL's bootstrap socket taken is the job's own failure, read as before
    assert classify(BOOTSTRAP_BIND) == "nccl_warn"
    assert [f.KIND for f in parse_lines(LaunchErrors, BOOTSTRAP_BIND)] == ["net.bind_error"]


def test_a_help_block_that_is_a_warning_only_is_no_failure() -> None:
    assert parse_lines(ErrorLines, OMPI_WARNING_ONLY) == []
    assert [f.get("form") for f in parse_lines(ErrorLines, OMPI_ABORT)] == ["failed", "failed"]


def test_host_slots_reaching_ssh_is_no_unresolvable_host() -> None:
    assert [(f.KIND, f.get("reason")) for f in parse_lines(RemoteShell, SSH_SLOTS)] == [("launch.remote_error", "host_slots")]
    assert [f.KIND for f in parse_lines(LaunchErrors, SSH_SLOTS)] == []
    assert [(f.KIND, f.get("host")) for f in parse_lines(RemoteShell, SSH_HOST)] == [("net.resolve_error", "node9")]


def test_the_cases() -> None:
    for healthy in ("healthy-nccl-2397-roce-2node-4rank-allreduce", "healthy-g-adopt-219-ompi-memory-bind-warning"):
        assert diagnose_files([str(CASES / healthy / "input")]).healthy, healthy
    report = diagnose_files([str(CASES / "bug-athena-139-horovod-ssh-localhost-slots-old-openmpi" / "input")])
    assert report.diagnoses[0].cause == "known_software_bug" and "MPI840" in report.diagnoses[0].rules


# k8s-device-plugin#480 (fixtures/cases/healthy-k8s-device-plugin-480-dmesg-driver-load, held-out batch CQ): the
# kernel's notice for any unsigned out-of-tree module, then a normal driver load; it made a crash (ksb 0.63)
UNSIGNED_MODULE = "[    2.846803] nvidia: module verification failed: signature and/or required key missing - tainting kernel\n"


def test_an_unsigned_module_notice_is_no_failure() -> None:
    assert classify(UNSIGNED_MODULE) == ""
    assert diagnose_files([str(CASES / "healthy-k8s-device-plugin-480-dmesg-driver-load" / "input")]).healthy


# jax#35905 (fixtures/cases/port-blocked-jax-35905-tpu-coordinator-port-8482-firewall, held-out batch CQ): a task that
# could not register with JAX's coordination service; read as nothing, the input was healthy
JAX_REGISTER = "DEADLINE_EXCEEDED: Deadline Exceeded\nRPC: /tensorflow.CoordinationService/RegisterTask\n"


def test_jax_coordination_registration_timeout_is_an_init_timeout() -> None:
    from doctor.judgement.context import read_symptom
    facts = parse_lines(LaunchErrors, JAX_REGISTER)
    assert [(f.KIND, f.get("backend")) for f in facts] == [("rdzv.timeout", "jax_coordination")]
    assert read_symptom(facts) == "init_timeout"
    assert not diagnose_files([str(CASES / "port-blocked-jax-35905-tpu-coordinator-port-8482-firewall" / "input")]).healthy


VLLM_BENCH_RESULT = Path(__file__).resolve().parents[2] / "fixtures" / "logs" / "vllm-bench-serve-result-pr-26478.txt"


def test_a_counter_of_no_failures_named_by_its_plural_is_no_failure() -> None:
    """vLLM's `vllm bench serve` result (vllm#26478, the PR that added the line): "Failed requests: 0" is a count of
    none; it had made a healthy benchmark (held-out batch MN) an unexplained error line and a crash guess at 0.49."""
    text = VLLM_BENCH_RESULT.read_text()
    assert [ln for ln in text.splitlines() if ln.startswith("Failed requests:")]
    assert all(classify(ln + "\n") == "" for ln in text.splitlines())
    assert diagnose_files([str(VLLM_BENCH_RESULT)]).healthy
    assert classify("Failed requests:                         3\n") == "failed"
    assert classify("Failed to connect: 0 retries left\n") == "failed"
