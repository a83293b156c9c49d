"""A narrowing sign (an error line that does not name its cause but narrows the field, context.NARROWING_SIGNS)
replaces the symptom's guesses by its own causes, and the report gives that sign's differential
(rules/differentials.yaml, `signs`). Real text: NCCL's "Got completion ... with error 12" lines of public cases."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from doctor.cluster.wire import fact_from_dict
from doctor.diagnose import diagnose_files
from doctor.facts import Fact
from doctor.judgement.context import narrowing_sign
from doctor.judgement.unknowns import sign_causes

REPO = Path(__file__).resolve().parents[1]
# NCCL 2.4-2.7's wording, no peer named (nccl#709: an MTU problem); NCCL 2.8+'s, peer named (nccl#733: NICs on
# different networks); a flush error (status 5) after another failure is no sign of the path (nccl#1524)
OLD_WORDING = REPO / "fixtures" / "cases" / "mtu-nccl-709" / "input"
PEER_WORDING = REPO / "fixtures" / "cases" / "rail-nccl-733-nics-not-connected" / "input"
FLUSH_ONLY = REPO / "fixtures" / "cases" / "mtu-nccl-1524" / "input"
FABRIC = {"ib_port_down", "rail_cross_nic", "ib_hca_mismatch", "roce_gid_misconfig", "mtu_mismatch"}


def test_the_sign_lists_the_fabric_causes() -> None:
    assert set(sign_causes()["ib_retries_exceeded"]) == FABRIC


def test_a_retries_exceeded_line_is_read_in_both_wordings() -> None:
    for path in (OLD_WORDING, PEER_WORDING):
        report = diagnose_files([str(path)])
        assert narrowing_sign(report.facts) == "ib_retries_exceeded", path.parent.name


def test_a_flush_error_is_not_the_sign() -> None:
    report = diagnose_files([str(FLUSH_ONLY)])
    assert narrowing_sign(report.facts) is None


def test_its_guesses_are_the_fabric_causes_not_a_software_bug() -> None:
    """Before this sign, error 12 alone was answered 'known_software_bug 0.65' (the nccl_error symptom's guess)."""
    for path in (OLD_WORDING, PEER_WORDING):
        report = diagnose_files([str(path)])
        assert report.diagnoses and {d.cause for d in report.diagnoses} <= FABRIC, path.parent.name
        assert all(not d.rules and d.confidence < 0.5 for d in report.diagnoses), "a guess is never sure"
        assert "retries" in report.diagnoses[0].evidence[0].note
        assert report.differential is not None and report.differential.symptom == "ib_retries_exceeded"


def test_the_json_report_carries_the_signs_differential(doctor_cli) -> None:
    data = json.loads(doctor_cli("analyze", "--json", str(OLD_WORDING)).stdout)
    assert data["differential"]["symptom"] == "ib_retries_exceeded"
    assert {c["cause"] for c in data["differential"]["causes"]} == FABRIC
    assert all(c["check"] for c in data["differential"]["causes"])


def test_a_status_13_counts_and_other_calls_do_not() -> None:
    def fact(**kw: object) -> Fact:
        made = fact_from_dict({"kind": "sys.call_failed", **kw})
        assert made is not None
        return made
    assert narrowing_sign([fact(call="ibv_poll_cq", errno="IBV_WC_13")]) == "ib_retries_exceeded"
    assert narrowing_sign([fact(call="ibv_modify_qp", errno="IBV_WC_12")]) is None


NO_DEVICES = REPO / "fixtures" / "cases" / "firmware-ogkm-774-gh200-vbios-no-devices" / "input"   # open-gpu-kernel-modules#774


def test_nvidia_smi_finding_no_device_is_a_failure_with_the_gpu_differential() -> None:
    """Before: 'No devices were found' was read as nothing, so the input was healthy. Now it is a failure whose
    guesses are the causes that leave the driver with no GPU, each with its check."""
    report = diagnose_files([str(NO_DEVICES)])
    assert not report.healthy
    assert narrowing_sign(report.facts) == "no_gpu_initialised"
    causes = set(sign_causes()["no_gpu_initialised"])
    assert {"cuda_driver_mismatch", "gpu_hw_fault", "firmware_outdated"} <= causes
    assert report.diagnoses and {d.cause for d in report.diagnoses} <= causes
    assert report.differential is not None and report.differential.symptom == "no_gpu_initialised"


NVML_UNKNOWN = {"ksb-nvidia-docker-1671-daemon-reload-nvml-unknown": "known_software_bug",   # nvidia-docker#1671
                "rank-spconv-185-container-without-gpus": "rank_config_error"}                 # spconv#185


@pytest.mark.parametrize("case,cause", sorted(NVML_UNKNOWN.items()))
def test_nvml_unknown_error_gives_the_container_differential(case: str, cause: str) -> None:
    """'Failed to initialize NVML: Unknown Error' has two causes in two threads (a container that lost its devices
    after a daemon-reload, one started without them): the sign's differential and guesses, each cause among them."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / case / "input")])
    assert not report.healthy and narrowing_sign(report.facts) == "nvml_unknown_error"
    assert cause in sign_causes()["nvml_unknown_error"]
    assert cause in [d.cause for d in report.diagnoses[:3]]
    assert report.differential is not None and report.differential.symptom == "nvml_unknown_error"


NCCL_OOM = {"stale-lab-gpu-nccl-init-oom": "stale_process_gpu_memory",                    # an H200 held by another process
            "oom-frag-cosmos-rl-731-nccl-cudamalloc-torch-cache": "oom_fragmentation"}  # cosmos-rl#731: PyTorch's cache


@pytest.mark.parametrize("case,cause", sorted(NCCL_OOM.items()))
def test_nccl_buffers_out_of_memory_gives_whose_memory_differential(case: str, cause: str) -> None:
    """NCCL's own 'Cuda failure 2 'out of memory'' says the GPU was full, not who filled it: no activations reading
    (MEM007 stays quiet), the three usual owners with their checks, the right one among the guesses."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / case / "input")])
    assert narrowing_sign(report.facts) == "nccl_buffers_out_of_memory"
    assert not any("MEM007" in d.rules for d in report.diagnoses)
    assert cause in [d.cause for d in report.diagnoses[:3]]
    assert report.differential is not None and report.differential.symptom == "nccl_buffers_out_of_memory"


SHM_OPEN = ["ksb-mediswarm-574-file-system-strategy-pin-memory-race",   # ENOENT: the segment was already unlinked
            "ksb-pytorch-75185-mapallocator-torch110-shm-handle"]       # torch 1.10's MapAllocator INTERNAL ASSERT


@pytest.mark.parametrize("case", SHM_OPEN)
def test_shm_segment_not_opened_is_no_full_dev_shm(case: str) -> None:
    """'unable to open shared memory object' is the receiving side opening a segment: no shm_too_small reading
    (SHM001 stays quiet); the sign's differential names the bug, the open-file limit and /dev/shm, each with its check."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / case / "input")])
    assert narrowing_sign(report.facts) == "shm_segment_not_opened"
    assert not any("SHM001" in d.rules for d in report.diagnoses)
    assert report.diagnoses[0].cause == "known_software_bug" and report.diagnoses[0].confidence < 0.5
    assert report.differential is not None and report.differential.symptom == "shm_segment_not_opened"


def test_rm_init_adapter_failed_is_the_no_gpu_differential() -> None:
    """dmesg's 'NVRM: RmInitAdapter failed!' is the driver failing to bring a GPU up (pai#4344, held-out batch CA):
    the same field as nvidia-smi's 'No devices were found', not the crash guess known_software_bug at 0.61."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "hw-pai-4344-rminitadapter-failed-gpu-missing" / "input")])
    assert narrowing_sign(report.facts) == "no_gpu_initialised"
    assert "gpu_hw_fault" in [d.cause for d in report.diagnoses[:3]]
    assert all(d.confidence < 0.5 for d in report.diagnoses)


# nvidia-smi's "couldn't communicate with the NVIDIA driver" in five threads, three causes (held-out batch CJ showed
# GPU004's gpu_hw_fault first on the two where a module was not built or a container had no GPU runtime)
DRIVER_UNREACHABLE = {"driver-manylinux-cuda-5-driver-in-image": "cuda_driver_mismatch",            # a driver baked into an image
                      "driver-qixuema-envs-4-dkms-module-not-built": "cuda_driver_mismatch",         # typographic apostrophe
                      "rank-bigdata-108-plain-docker-no-gpu": "rank_config_error",                   # docker without the runtime
                      "rank-model-angelo-60-slurm-job-without-gpu": "rank_config_error",             # a Slurm job without a GPU
                      "pcie-cyclenerd-miner-40": "gpu_hw_fault"}                                      # a GPU on a riser (also acceptable)
# PyTorch's "CUDA initialization: CUDA unknown error": a driver installed without a reboot, or its state after a suspend
CUDA_INIT_UNKNOWN = {"driver-pytorch-49081-no-reboot-after-driver-install": "cuda_driver_mismatch",
                     "driver-singularity-5966-cuda-unknown-error-driver-reinstall": "cuda_driver_mismatch",
                     "hw-pytorch-88639-cuda-unknown-after-suspend": "gpu_hw_fault",
                     "hw-pytorch-159954-cuda-unknown-reload-uvm": "gpu_hw_fault",
                     "hw-stableswarmui-153-cuda-unknown-after-sleep": "gpu_hw_fault"}
# Lightning counting no GPU: a CPU-only PyTorch in both threads (lightning#899 with its conda list, Deep-Packet#4)
NONE_COUNTED = {"driver-lightning-899-cpu-pytorch-gpus-requested": "cuda_driver_mismatch",
                "driver-deep-packet-4-cpuonly-pytorch-build": "cuda_driver_mismatch"}
# Open MPI killing a process it could not bind (hwloc_set_cpubind returned "Error"): a binding outside the job's CPUs
# (spd#246, MFC#1834) or Open MPI's bundled hwloc under Slurm's cgroup (ompi#12470); before, healthy or RANK007
BINDING = {"rank-spd-246-mpirun-bind-outside-slurm-cpuset": "rank_config_error",
           "rank-mfc-1834-mpirun-bind-partial-slurm-cpuset": "rank_config_error",
           "ksb-ompi-12470-internal-hwloc-slurm-cgroup-bind": "known_software_bug"}
# NCCL's bare "invalid usage" with no WARN line naming why: two logical nodes given the same GPUs (PaddleFleetX FAQ),
# NCCL_NET=IB in a container without /dev/infiniband (ainode#87), version bugs (lightning#8139, pytorch#172398);
# before, each was the nccl_error symptom's guess known_software_bug at 0.8, the right cause nowhere for two
INVALID_USAGE = {"rank-paddlefleetx-faq-two-logical-nodes-same-gpus": "rank_config_error",
                 "ainode-87-no-dev-infiniband-in-container": "ib_not_used",
                 "ksb-lightning-8139": "known_software_bug",
                 "ksb-pytorch-172398-devcomm-nccl229": "known_software_bug"}
SIGNED = [("driver_unreachable", c, k) for c, k in DRIVER_UNREACHABLE.items()] + \
         [("nccl_invalid_usage", c, k) for c, k in INVALID_USAGE.items()] + \
         [("process_binding_failed", c, k) for c, k in BINDING.items()] + \
         [("cuda_init_unknown_error", c, k) for c, k in CUDA_INIT_UNKNOWN.items()] + \
         [("framework_counts_no_gpu", c, k) for c, k in NONE_COUNTED.items()]


@pytest.mark.parametrize("sign,case,cause", SIGNED, ids=[c for _, c, _ in SIGNED])
def test_a_driver_level_line_gives_its_differential_not_one_cause(sign: str, case: str, cause: str) -> None:
    """The line says the GPU stack failed, not why: no rule names a cause from it (before: GPU004's gpu_hw_fault or
    CUDA002 on nvidia-smi's line, nothing at all on PyTorch's warning, RANK002's ordinal error on Lightning's empty
    list); the sign's causes are the guesses, the thread's cause among them, each with its check."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / case / "input")])
    assert not report.healthy and narrowing_sign(report.facts) == sign
    assert cause in sign_causes()[sign]
    assert not any(d.rules for d in report.diagnoses)
    assert cause in [d.cause for d in report.diagnoses[:3]]
    assert report.differential is not None and report.differential.symptom == sign


def test_invalid_usage_whose_warn_names_the_cause_is_read_by_its_rule() -> None:
    """A lab run of two ranks on one GPU: NCCL's 'Duplicate GPU detected' WARN precedes the same 'invalid usage'
    error; the sign holds but the rule that reads the WARN names the cause, not a guess."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "rank-lab-gpu-duplicate-gpu" / "input")])
    assert narrowing_sign(report.facts) == "nccl_invalid_usage"
    assert report.diagnoses[0].cause == "rank_config_error" and report.diagnoses[0].rules


def test_no_rdma_device_gives_the_driver_stack_differential() -> None:
    """ibstatus' 'sys files not found (/sys/class/infiniband/*/ports)' with the ConnectX-3 VF on lspci (azhpc-images#51,
    an OFED that dropped the card): before, the crash guess known_software_bug 0.53 and ib_not_used nowhere."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "ib-not-used-azhpc-images-51-cx3pro-no-ib-device" / "input")])
    assert narrowing_sign(report.facts) == "no_rdma_device"
    assert set(sign_causes()["no_rdma_device"]) == {"ib_not_used", "firmware_outdated", "version_mismatch", "known_software_bug"}
    assert "ib_not_used" in [d.cause for d in report.diagnoses[:3]]
    assert all(d.confidence < 0.5 and not d.rules for d in report.diagnoses)


def test_no_rdma_device_beside_the_drivers_firmware_complaint_is_read_by_its_rule() -> None:
    """trinity#219: the same ibstatus line, and dmesg's 'please upgrade to later FW version': FW002 names the cause."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / "firmware-trinity-219" / "input")])
    assert narrowing_sign(report.facts) == "no_rdma_device"
    assert report.diagnoses[0].cause == "firmware_outdated" and report.diagnoses[0].rules


@pytest.mark.parametrize("case,cause", [("env-cscsdocs-nccl-net-plugin-ofi-uenv", "nccl_env_misuse"),
                                        ("ib-not-used-cscsdocs-aws-ofi-plugin-not-loaded", "ib_not_used")])
def test_a_network_no_plugin_provides_gives_its_differential(case: str, cause: str) -> None:
    """CSCS's known issues: 'NCCL WARN Error: network AWS Libfabric not found.' after an NCCL_NET left from another
    environment, and after a plugin that was not loaded (held-out batch DE: known_software_bug first on both)."""
    report = diagnose_files([str(REPO / "fixtures" / "cases" / case / "input")])
    assert narrowing_sign(report.facts) == "nccl_net_not_found"
    assert cause in sign_causes()["nccl_net_not_found"]
    assert report.differential is not None and report.differential.symptom == "nccl_net_not_found"
    assert all(not d.rules and d.confidence < 0.5 for d in report.diagnoses)
