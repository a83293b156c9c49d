"""What the input says about the situation: the symptom it shows and the context features that shift the weights.

Both are read from facts already gathered (no new parsing here). Tables, in order of precedence.
"""
from __future__ import annotations

import re
from typing import Callable

from doctor.facts import Fact
from doctor.facts.launch import PROCESS_GROUP_SETUP

Test = Callable[[Fact], bool]


def _always(_: Fact) -> bool:
    return True


BELOW_EXPECTATION = 0.7    # a measurement under 70% of what was expected is a slowness (the bench rules' bands)


_NET_NOT_FOUND = re.compile(r"Error: network .+ not found\.?$")     # NCCL's net.cc WARN


def _stuck_in_collective(f: Fact) -> bool:
    """A stack of a live process inside a collective, a kernel launch or a stream synchronize."""
    if f.KIND == "stack.native":
        return not f.get("signal") and f.get("waits_in") != "comm_init"
    return bool(f.get("collective")) and f.get("collective") not in PROCESS_GROUP_SETUP


def _stuck_forming(f: Fact) -> bool:
    """A stack of a live process still forming the job: NCCL communicator setup, init_process_group, new_group."""
    if f.KIND == "stack.native":
        return not f.get("signal") and f.get("waits_in") == "comm_init"
    return f.get("collective") in PROCESS_GROUP_SETUP

# The symptom an input shows, first match wins: (fact kind, test, symptom).
SYMPTOM_SIGNS: tuple[tuple[str, Test, str], ...] = (
    ("oom.event", _always, "oom"),
    ("memory.snapshot", lambda f: bool(f.get("oom")), "oom"),
    ("collective.timeout", _always, "hang"),
    ("collective.stalled", _always, "hang"),
    ("collective.progress", _always, "hang"),
    ("stack.native", _stuck_in_collective, "hang"),
    ("stack.process", _stuck_in_collective, "hang"),
    ("rdzv.timeout", _always, "init_timeout"),
    ("net.connect_error", lambda f: f.get("transport") in ("store", "rdzv", "gloo", "ray") or f.get("outcome") == "timeout",
     "init_timeout"),     # gloo connects every pair when the group is created (connectFullMesh): a failed connect is init;
    # a Ray worker node that cannot reach the head never joins the cluster
    ("net.resolve_error", _always, "init_timeout"),
    ("stack.native", _stuck_forming, "init_timeout"),
    ("stack.process", _stuck_forming, "init_timeout"),
    ("nccl.error", _always, "nccl_error"),
    ("nccl.warn", _always, "nccl_error"),
    ("sys.call_failed", _always, "nccl_error"),
    ("net.ifname_error", _always, "init_timeout"),   # no usable socket interface: the job never forms (NCCL's own
    # error lines, read above, make it an nccl_error first)
    ("cuda.error", _always, "crash"),
    ("gpu.fault", _always, "crash"),
    ("p2p.copy_corrupted", _always, "crash"),   # a copy between GPUs arrived zeroed: wrong results, a failure
    ("worker.bus_error", _always, "crash"),
    ("net.bind_error", _always, "crash"),
    ("launch.config_error", _always, "crash"),
    ("launch.remote_error", _always, "crash"),   # the launcher could not start processes on a host (ssh, pdsh)
    ("trace.frame", lambda f: f.get("activity") == "process_group_setup", "init_timeout"),   # a traceback through
    # process-group setup whose own error line names nothing more specific
    ("nccl.init_unfinished", _always, "hang"),   # NCCL's output stops inside init with nothing after it
    ("bench.verdict", lambda f: 0 <= float(f.get("ratio")) < BELOW_EXPECTATION, "slow_multinode"),
    ("bench.collective", lambda f: not f.get("failed"), "slow_multinode"),   # a test that ended on its own failure
    # ('Test CUDA failure', 'Test NCCL failure') crashed: its error lines say how, not its figures
    ("bench.bandwidth", _always, "slow_multinode"),
    ("trace.step", _always, "slow_training"),
    ("train.steps", _always, "slow_training"),
    ("gpu.utilisation", _always, "slow_training"),
    ("profile.kernels", _always, "slow_training"),
    ("profile.dataloader", _always, "slow_training"),
)

# How a sign shows its symptom, where the quoted line alone does not say it (a report quotes it beside a guess).
SIGN_NOTES: dict[str, str] = {
    "nccl.init_unfinished": "NCCL's output stops here, inside communicator init (no Init COMPLETE, no error after it)",
}


def sign_note(sign: Fact, symptom: str | None) -> str:
    """The note beside the line that showed the symptom."""
    note = SIGN_NOTES.get(sign.KIND)
    return f"{note}: read as a {symptom}" if note else f"shows the symptom {symptom}"


# Figures, not failures: an input whose only symptom sign is one of these shows no failure by itself (a verdict
# against an expectation does). Nor does an NCCL log that stops inside init: a hung job's log and a healthy excerpt
# read the same, and healthy means no error line and no measurement outside its expectation. The sign still names
# the symptom for the differential, and shifts the guesses once the user says the job hangs (--symptom hang).
MEASUREMENT_KINDS = frozenset({"bench.collective", "bench.bandwidth", "trace.step", "train.steps", "gpu.utilisation",
                               "profile.kernels", "profile.dataloader"})
NOT_FAILURES = MEASUREMENT_KINDS | {"nccl.init_unfinished"}

QUIET = "quiet"      # no error line and no sign of a symptom: what healthy inputs look like (slow_* causes aside)
LAUNCHER_PROBES = ("openmpi", "horovod", "deepspeed", "lightning", "accelerate", "tensorflow")

# Context features: name -> (fact kind, test). A feature holds when any fact of that kind passes the test.
CONTEXT_SIGNS: dict[str, tuple[str, Test]] = {
    "container": ("container.device", _always),
    "ib": ("ib.port", _always),
    "roce": ("ib.port", lambda f: bool(f.get("roce"))),
    "nccl_ib": ("nccl.hca", _always),
    "nccl_roce": ("nccl.hca", lambda f: str(f.get("link_layer")).lower() == "roce"),   # NET/IB : Using [0]mlx5_0:1/RoCE
    "consumer_gpu": ("gpu.device", lambda f: bool(f.get("consumer"))),
    "datacenter_gpu": ("gpu.device", lambda f: not f.get("consumer")),
    "nccl": ("nccl.version", _always),
    "nccl_before_2_12": ("nccl.version", lambda f: 0 < int(f.get("version_num") or 0) < 21200),
    "gloo": ("collective.timeout", lambda f: f.get("backend") == "gloo"),
    "torchrun": ("rdzv.endpoint", _always),
    "nccl_init_unfinished": ("nccl.init_unfinished", _always),
    # a framework's output ends on a step of distributed init (doctor/aggregate_launch.py): context, not a symptom. Read
    # as the init_timeout symptom it moved CV top-3 by -0.003..+0.003 over seeds 0-3 (the labels of such logs spread
    # over port, address, interface, rank and bug causes); as a context of the fitted weights, +0.001..+0.003
    "init_stopped": ("launch.init_stopped", _always),
    # what the machine and the job look like where the input says little else (the guesses of a quiet input lean
    # on these: a PCIe-only box points at P2P, a socket transport at the network)
    "gpus_pcie_only": ("topo.summary", lambda f: int(f.get("pairs") or 0) > 0 and not int(f.get("nvlink_pairs") or 0)),
    "gpus_nvlink": ("topo.summary", lambda f: int(f.get("nvlink_pairs") or 0) > 0),
    "nccl_p2p": ("nccl.channel", lambda f: str(f.get("transport")).startswith("P2P")),
    "nccl_net": ("nccl.channel", lambda f: bool(f.get("remote"))),
    "nccl_socket": ("nccl.summary", lambda f: bool(f.get("socket_used"))),
    "nccl_tests": ("bench.collective_size", _always),
}

# Narrowing signs: error lines that do not name their cause but narrow the field to a few causes, as an expert reads
# them (rules/differentials.yaml, `signs`, lists the causes and the check that tells them apart). Where one holds,
# the model's guesses are that sign's causes, not the symptom's (the first sign of this table that holds).
NARROWING_SIGNS: dict[str, tuple[str, Test]] = {
    # an IB/RoCE work completion that ran out of retries (12) or of receiver-not-ready retries (13): "error 12 is a
    # timeout. It means the NICs can't talk to each other" (NCCL's maintainer, nccl#733)
    "ib_retries_exceeded": ("sys.call_failed", lambda f: f.get("call") == "ibv_poll_cq"
                            and f.get("errno") in ("IBV_WC_12", "IBV_WC_13")),
    # nvidia-smi's "No devices were found": the driver answers but brought up no GPU
    "no_gpu_initialised": ("cuda.error", lambda f: f.get("error") == "no_gpu_found"),
    # NCCL's own device allocation failed ("NCCL WARN Cuda failure 2 'out of memory'", probes/oom.py): the GPU was full
    # when NCCL set up its buffers; whose memory filled it the line does not say
    "nccl_buffers_out_of_memory": ("oom.event", lambda f: f.get("during") == "nccl_buffers"),
    # a shared-memory segment another process made could not be opened (PyTorch's "unable to open shared memory
    # object", NCCL's "Error while attaching to shared memory segment"): not a full /dev/shm, which fails the creator
    "shm_segment_not_opened": ("sys.call_failed", lambda f: f.get("call") == "shm_attach"),
    # NVML's "Failed to initialize NVML: Unknown Error": the library loaded, the devices could not be opened
    "nvml_unknown_error": ("cuda.error", lambda f: f.get("error") == "nvml_unknown"),
    # a framework counted no GPU and says only that (Lightning's "GPUs requested but none are available", "But your
    # machine only has: []"): torch.cuda.device_count() was 0, for one of three reasons it cannot tell apart
    "framework_counts_no_gpu": ("cuda.error", lambda f: f.get("error") == "none_counted"),
    # CUDA's own "no CUDA-capable device is detected" (cudaErrorNoDevice, 100; PyTorch's "No CUDA GPUs are available"):
    # the runtime loaded and counted no device this process may use. Mostly hidden GPUs (CUDA_VISIBLE_DEVICES, a job
    # or container given none: RANK960), but a driver that stopped serving its GPUs reads the same (a kernel updated
    # without a reboot: deepnet#28; an MPI build for GPUs run on CPU-only nodes: mpich#6686)
    "no_visible_gpu": ("cuda.error", lambda f: f.get("error") == "no_visible_gpu"),
    # nvidia-smi's "couldn't communicate with the NVIDIA driver": no kernel module answered (not built or not loaded),
    # the container or job was given no GPU, or the GPU did not come up (nvidia#5, qixuema#4, bigdata#108, angelo#60,
    # cyclenerd#40: three causes)
    "driver_unreachable": ("cuda.error", lambda f: f.get("error") == "driver_unreachable"),
    # PyTorch's "CUDA initialization: CUDA unknown error": cuInit failed with CUDA_ERROR_UNKNOWN (pytorch#49081, #88639,
    # #159954, singularity#5966, stableswarmui#153: a driver installed without a reboot, or its state after a suspend)
    "cuda_init_unknown_error": ("cuda.error", lambda f: f.get("error") == "init_unknown"),
    # Open MPI killed a process it could not bind to its CPUs (hwloc_set_cpubind returned "Error"): a binding outside
    # the CPUs the job was given (Slurm's cgroup), or Open MPI's bundled hwloc under Slurm (ompi#12470, spd#246, MFC#1834)
    "process_binding_failed": ("launch.config_error", lambda f: str(f.get("what")).startswith("binding: ")),
    # an RDMA tool found no RDMA device in the OS (ibstatus' 'sys files not found (/sys/class/infiniband/*/ports)'): no
    # driver brought the HCA up - a missing or unsupported driver stack, firmware the driver refuses, modules built for
    # another kernel (trinity#219, azhpc-images#51: two threads, two causes)
    "no_rdma_device": ("rdma.no_device", _always),
    # NCCL_NET (or a plugin's default) asks for a network no loaded plugin provides: "NCCL WARN Error: network AWS
    # Libfabric not found." (CSCS's known issues: an NCCL_NET left from another environment, a plugin not loaded)
    "nccl_net_not_found": ("nccl.warn", lambda f: bool(_NET_NOT_FOUND.match(str(f.get("message"))))),
    # PyTorch's heartbeat monitor: "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in
    # monitoring enqueued collectives": the watchdog thread itself blocks in a CUDA/NCCL call, not a collective that
    # ranks never joined (a desync times out instead): teardown order or a version's bug (Fuser#3055, ms-swift#7992,
    # open-r1#478), or a GPU that stopped answering
    "watchdog_thread_stuck": ("collective.stalled", lambda f: f.get("framework") == "pytorch_watchdog"),
    # vLLM's start-up memory check: "ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than
    # desired GPU memory utilization (0.9, 19.84 GiB)": the GPU had less free memory than the engine was told to take.
    # Mostly another process holding it (an earlier engine, a colocated trainer: vllm#50135, #33297), sometimes the
    # stack's own start-up footprint grown by tens of MiB (pytorch#175666), or two workers placed on one GPU
    "engine_memory_short_at_start": ("log.error_line",
                                     lambda f: "on startup is less than desired GPU memory utilization" in str(f.get("text"))),
    # NIXL's "VRAM memory is detected as host by UCX" (its UCX backend found no CUDA memory domain): UCX in this process
    # has no CUDA support - UCX_TLS leaves the cuda transports out (TensorRT-LLM#18373), the wheel's UCX modules are not
    # found (nixl#1628: UCX_MODULE_DIR), or UCX was built without CUDA
    "ucx_without_cuda": ("log.error_line", lambda f: "detected as host by UCX" in str(f.get("text"))),
    # NCCL's bare "invalid usage" (ncclInvalidUsage, "run with NCCL_DEBUG=WARN for details"): NCCL refused a call or a
    # setting and its WARN line, which names which, is not in the input. Last: any sign above says more.
    "nccl_invalid_usage": ("nccl.error", lambda f: f.get("code") == "invalid_usage"),
}

# What each sign means, beside the line that shows it in a guess's evidence.
NARROWING_NOTES: dict[str, str] = {
    "no_gpu_initialised": "the NVIDIA driver answers but brought up no GPU: the driver and this GPU or kernel, the GPU "
                          "itself, its firmware, or a container given no GPU",
    "nccl_buffers_out_of_memory": "NCCL could not allocate its own buffers: the GPU was already full (another process, "
                                  "PyTorch's cache, or the job's own model and states)",
    "shm_segment_not_opened": "a process could not open a shared-memory segment another one made: the segment was gone "
                              "(a race of the sharing strategy, a bug) or the open-file limit was reached",
    "nvml_unknown_error": "NVML could not open the GPUs for a reason it does not name: a container that lost its device "
                          "access, one started without GPUs, or a broken driver install",
    "framework_counts_no_gpu": "the framework counted no GPU (torch.cuda.device_count() was 0): a PyTorch build without "
                               "CUDA, no usable driver, or GPUs hidden from the process",
    "no_visible_gpu": "CUDA counted no GPU this process may use: GPUs hidden from it (CUDA_VISIBLE_DEVICES, a job or "
                      "container given none), a driver that no longer serves them (a kernel or driver changed without "
                      "a reboot), or no GPU on this node",
    "driver_unreachable": "nvidia-smi reached no NVIDIA kernel driver: the module is not built or not loaded, the "
                          "container or job was given no GPU, or the GPU did not come up",
    "cuda_init_unknown_error": "CUDA could not initialise and does not say why (CUDA_ERROR_UNKNOWN): the driver's state "
                               "after a suspend or a fault, a driver installed or upgraded without a reboot, or devices "
                               "missing in a container",
    "process_binding_failed": "Open MPI could not bind a process to the CPUs it chose and killed it: the binding asks "
                              "for CPUs the job was not given, or the library's hwloc misreads the job's CPU set",
    "no_rdma_device": "no RDMA device exists in the OS: no driver brought the HCA up (the driver stack missing or "
                      "without support for this card, firmware it refuses, modules built for another kernel)",
    "nccl_net_not_found": "NCCL was asked for a network no loaded plugin provides: NCCL_NET names it, and its plugin "
                          "is missing from this environment or the setting is left from another",
    "watchdog_thread_stuck": "PyTorch's watchdog thread itself hung inside a CUDA or NCCL call: a communicator torn "
                             "down in the wrong order, a library version's bug, or a GPU that stopped answering - not "
                             "ranks waiting on each other",
    "engine_memory_short_at_start": "the engine found less free GPU memory at start than it was told to use: "
                                    "another process holding memory on that GPU, the stack's own start-up footprint "
                                    "grown, or two workers on one GPU",
    "ucx_without_cuda": "UCX in this process has no CUDA support, so GPU memory cannot be registered: UCX_TLS leaves "
                        "the cuda transports out, UCX's CUDA modules are not found, or this UCX was built without CUDA",
    "nccl_invalid_usage": "NCCL refused the call or a setting (ncclInvalidUsage) without saying which here: two ranks "
                          "on one GPU, an NCCL_* variable it rejects, or no network transport it may use",
    "ib_retries_exceeded": "the HCA ran out of retries reaching its peer: the two NICs cannot talk (a port, the path, "
                           "the fabric, the MTU or the RoCE GID), not NCCL or the job",
}


def narrowing_fact(facts: list[Fact]) -> tuple[str, Fact] | None:
    """The first narrowing sign that holds in the input and the fact that shows it, or None."""
    for name, (kind, test) in NARROWING_SIGNS.items():
        found = next((f for f in facts if f.KIND == kind and test(f)), None)
        if found is not None:
            return name, found
    return None


def narrowing_sign(facts: list[Fact]) -> str | None:
    """The name of the first narrowing sign that holds in the input, or None."""
    found = narrowing_fact(facts)
    return found[0] if found else None


def symptom_fact(facts: list[Fact]) -> Fact | None:
    """The fact that showed the symptom read_symptom() reads (the line a symptom-only diagnosis quotes)."""
    for kind, test, _ in SYMPTOM_SIGNS:
        found = next((f for f in facts if f.KIND == kind and test(f)), None)
        if found is not None:
            return found
    return next((f for f in facts if f.KIND == "log.error_line"), None)


def read_symptom(facts: list[Fact], fallback: bool = False) -> str | None:
    """The symptom the input shows, or None when it shows none of the signs. fallback: an input whose only sign is
    an error line shows a crash (used to pick a differential, never to weigh causes)."""
    kinds = {f.KIND for f in facts}
    for kind, test, symptom in SYMPTOM_SIGNS:
        if kind in kinds and any(test(f) for f in facts if f.KIND == kind):
            return symptom
    return "crash" if fallback and "log.error_line" in kinds else None


def shows_failure(facts: list[Fact]) -> bool:
    """An error line, or a symptom sign that is not a bare measurement."""
    for f in facts:
        if f.KIND == "log.error_line":
            return True
        if f.KIND in NOT_FAILURES:
            continue
        if any(kind == f.KIND and test(f) for kind, test, _ in SYMPTOM_SIGNS):
            return True
    return False


def features(facts: list[Fact]) -> tuple[str, ...]:
    """The context features that hold, sorted: the table above, one node or many, the launcher."""
    by_kind: dict[str, list[Fact]] = {}
    for f in facts:
        by_kind.setdefault(f.KIND, []).append(f)
    out = {name for name, (kind, test) in CONTEXT_SIGNS.items() if any(test(f) for f in by_kind.get(kind, ()))}
    nodes = {f.node for f in facts if f.node and f.KIND != "probe.status"}
    if len(nodes) > 1:
        out.add("multi_node")
    if read_symptom(facts, fallback=True) is None:
        out.add(QUIET)
    probes = {f.origin.probe for f in facts}
    out.update(f"launcher_{name}" for name in LAUNCHER_PROBES if name in probes)
    return tuple(sorted(out))
