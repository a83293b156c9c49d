"""Launch, rendezvous and socket-interface failures in other launchers' and older libraries' wordings (issue 12).

Each text is real output (the case or thread named beside it); each test asserts the fact the probe must read from
it, or that a near-miss wording gives none.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.launch_errors import LaunchErrors
from probes.nccl_log import NcclLogProbe as NcclLog

NCCL_24_NO_INTERFACE = """\
local-env:1133:1728 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.
local-env:1133:1728 [0] NCCL INFO Using internal Network Socket
local-env:1133:1728 [0] NCCL INFO NET/Socket : 0 interfaces found

local-env:1133:1728 [0] transport/net_socket.cu:39 NCCL WARN NET/Socket : no interface found
"""                                   # fixtures/cases/ifname-pocketflow-105 (NCCL 2.4)

NCCL_SOCKETS_FOUND = "gpu2:46654:46654 [0] NCCL INFO NET/Socket : 1 interfaces found\n"    # NVIDIA/nccl#207, healthy

ACCELERATE_PORT = ("ConnectionError: Tried to launch distributed communication on port `29500`, but another process is "
                   "utilizing it. Please specify a different port (such as using the `----main_process_port` flag or "
                   "specifying a different `main_process_port` in your config file) and rerun your script.\n")

UNIQUE_ID_WAIT = ("[rank2]: torch.distributed.DistBackendError: [2] is setting up NCCL communicator and retrieving "
                  "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait "
                  "timeout after 600000ms, keys: /default_pg/0//27//cuda//0\n")
UNIQUE_ID_RESET = ("torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId "
                   "from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer\n")

NCCL_RETRY = "hostname:26407:26474 NCCL INFO Call to connect returned Connection refused, retrying...\n"   # horovod#1408

GLOO_WRAPPED = """\
[rank8] Warning: Unable to resolve hostname to a (local) address. Using the loopback
        address as fallback. Manually set the network interface with GLOO_SOCKET_IFNAME
[rank8] Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: Connection refused,
        remote=[127.0.0.1]:14215
"""                                   # fixtures/cases/wrong-ifname-awsdoeks-50


def kinds(facts, kind):
    return [f for f in facts if f.KIND == kind]


def test_nccl_24_no_interface_found_is_an_interface_error() -> None:
    errors = kinds(parse_lines(NcclLog, NCCL_24_NO_INTERFACE), "net.ifname_error")   # one fact: both lines say the same
    assert [(e.origin.line, e.transport, e.ifname) for e in errors] == [(3, "nccl", "")]
    (warn,) = kinds(parse_lines(NcclLog, NCCL_24_NO_INTERFACE.splitlines()[-1]), "net.ifname_error")
    assert warn.transport == "nccl"


def test_interfaces_found_with_a_count_is_no_error() -> None:
    assert not kinds(parse_lines(NcclLog, NCCL_SOCKETS_FOUND), "net.ifname_error")


def test_accelerate_port_check_is_a_bind_error_on_its_port() -> None:
    (bind,) = kinds(parse_lines(LaunchErrors, ACCELERATE_PORT), "net.bind_error")
    assert bind.port == 29500


def test_unique_id_wait_timeout_is_a_missing_peer_not_a_connect_failure() -> None:
    facts = parse_lines(LaunchErrors, UNIQUE_ID_WAIT)
    assert not kinds(facts, "net.connect_error")
    assert [w.backend for w in kinds(facts, "rdzv.timeout")] == ["nccl_id"]


def test_unique_id_get_on_a_reset_store_stays_a_store_connect_error() -> None:
    facts = parse_lines(LaunchErrors, UNIQUE_ID_RESET)
    assert [(c.transport, c.outcome) for c in kinds(facts, "net.connect_error")] == [("store", "reset")]
    assert not kinds(facts, "rdzv.timeout")


def test_old_nccl_connect_retry_is_one_refused_nccl_connect() -> None:
    facts = parse_lines(LaunchErrors, NCCL_RETRY * 50)
    assert [(c.transport, c.outcome, c.origin.line) for c in kinds(facts, "net.connect_error")] == [("nccl", "refused", 1)]


def test_wrapped_gloo_lines_are_read_across_the_wrap() -> None:
    facts = parse_lines(LaunchErrors, GLOO_WRAPPED)
    assert [h.loopback for h in kinds(facts, "host.name")] == [True]
    (conn,) = kinds(facts, "net.connect_error")
    assert (conn.transport, conn.host, conn.port, conn.loopback, conn.origin.line) == ("gloo", "127.0.0.1", 14215, True, 3)


def test_a_remote_on_an_unrelated_later_line_is_not_joined() -> None:
    text = GLOO_WRAPPED.splitlines()[2] + "\nsome other line\n        remote=[10.0.0.2]:1\n"
    assert not kinds(parse_lines(LaunchErrors, text), "net.connect_error")


HOROVOD_DEVICE = ("[1,0]<stderr>:tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched ALLREDUCE "
                  "CPU/GPU device selection: One rank specified device CPU, but another rank specified device GPU.\n")
HOROVOD_SHAPES = ("[1,0]<stderr>:tensorflow.python.framework.errors_impl.FailedPreconditionError: Mismatched ALLREDUCE "
                  "tensor shapes: One rank sent a tensor of shape [10], but another rank sent a tensor of shape [20].\n")


def test_horovod_device_selection_mismatch_is_a_config_error_of_rank_0() -> None:
    from probes.horovod import Horovod
    (err,) = kinds(parse_lines(Horovod, HOROVOD_DEVICE), "launch.config_error")
    assert (err.rank, err.what) == (0, "Horovod: ALLREDUCE device selection differs between ranks (CPU vs GPU)")
    assert not kinds(parse_lines(Horovod, HOROVOD_SHAPES), "launch.config_error")    # shapes: the program, not the build


TWO_COPIES = """\
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.94145 
#
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.94156 
"""                                   # fixtures/cases/rank_config_error-nccl-tests-27 (mpirun of a non-MPI build)
ROW = "     1048576        262144     float     sum      -1   1000.0    1.05    1.57      0   1000.0    1.05    1.57      0\n"


def test_nccl_tests_summaries_printed_together_are_counted_back_to_back() -> None:
    from probes.nccl_tests import NcclTests
    (b,) = kinds(parse_lines(NcclTests, TWO_COPIES), "bench.collective")
    assert (b.summaries, b.back_to_back_summaries, round(b.summary_spread, 5)) == (2, 1, 3e-05)
    lines = TWO_COPIES.splitlines(keepends=True)
    (seq,) = kinds(parse_lines(NcclTests, ROW + "".join(lines[:2]) + ROW + "".join(lines[3:])), "bench.collective")
    assert (seq.summaries, seq.back_to_back_summaries) == (2, 0)      # two runs one after the other


def test_rank_on_another_gpu_wordings() -> None:
    facts = parse_lines(LaunchErrors, "AssertionError: expected local-rank to be the same as rank % device-count.\n"
                        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
                        "cuda:1 and cuda:0!\n")
    assert [(m.sign, m.devices) for m in kinds(facts, "launch.device_mismatch")] == [
        ("local_rank_check", ""), ("tensors_on_two_gpus", "cuda:1, cuda:0")]
    cpu = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
    assert not kinds(parse_lines(LaunchErrors, cpu), "launch.device_mismatch")


def test_bracketed_ipv4_mapped_store_address_keeps_its_host_and_port() -> None:
    line = ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [::ffff:255.255.0.0]:29500 "
            "(errno: 110 - Connection timed out).\n")     # LlamaFactory#3715
    (c,) = kinds(parse_lines(LaunchErrors, line), "net.connect_error")
    assert (c.host, c.port, c.outcome) == ("::ffff:255.255.0.0", 29500, "timeout")
    (plain,) = kinds(parse_lines(LaunchErrors, line.replace("[::ffff:255.255.0.0]", "node1")), "net.connect_error")
    assert (plain.host, plain.port) == ("node1", 29500)


def test_nccl_24_socket_creation_without_an_address_family_is_no_interface() -> None:
    line = "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol\n"
    (e,) = kinds(parse_lines(NcclLog, line), "net.ifname_error")      # nccl-tests#14 and nccl#210 (maintainers' reading)
    assert e.transport == "nccl"


def test_a_header_repeated_before_any_row_is_a_copy_running_alongside() -> None:
    from probes.nccl_tests import NcclTests
    header = ("# nThread 1 nGpus 8 minBytes 1073741824 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
              "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")          # nccl-tests#213
    (b,) = kinds(parse_lines(NcclTests, header + header), "bench.collective")
    assert b.copies_together == 1
    (seq,) = kinds(parse_lines(NcclTests, header + ROW + "# Avg bus bandwidth    : 1.5\n" + header + ROW), "bench.collective")
    assert seq.copies_together == 0
    (two,) = kinds(parse_lines(NcclTests, TWO_COPIES), "bench.collective")
    assert two.copies_together == 1
    unequal = TWO_COPIES.replace("3.94156", "7.5")
    assert kinds(parse_lines(NcclTests, unequal), "bench.collective")[0].copies_together == 0


RAY_REDIS = ("F1119 08:22:23.602082 1513663 1513663 redis_context.cc:298] Could not establish connection to redis "
             "161.97.xx.xxx:12662 (context.err = 1)\n")     # fixtures/cases/port-blocked-ray-12153 (Ray 1.0 raylet)
RAY_GCS = ("[2026-03-01 22:48:01,851 W 6578 6578] rpc_client.h:153: Failed to connect to GCS at address "
           "10.166.166.106:6379 within 5 seconds.\n")      # a public Ray 2.x worker start log
REDIS_ELSEWHERE = "Could not establish connection to Redis after maximum retries.\n"   # a web app's own message


def test_a_ray_worker_that_cannot_reach_the_head_is_a_connect_failure() -> None:
    (redis,) = kinds(parse_lines(LaunchErrors, RAY_REDIS), "net.connect_error")
    assert (redis.transport, redis.host, redis.port, redis.outcome) == ("ray", "161.97.xx.xxx", 12662, "other")
    (gcs,) = kinds(parse_lines(LaunchErrors, RAY_GCS), "net.connect_error")
    assert (gcs.transport, gcs.host, gcs.port, gcs.outcome) == ("ray", "10.166.166.106", 6379, "timeout")
    assert not kinds(parse_lines(LaunchErrors, REDIS_ELSEWHERE), "net.connect_error")


NCCL_22 = """\
C4140-V100-1:24:201 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]
C4140-V100-1:24:201 [0] INFO Using internal Network Socket
C4140-V100-1:24:201 [0] INFO NET : Using interface ib0:192.168.11.1<0>
C4140-V100-2:24:229 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]
"""                                   # fixtures/cases/ib-not-used-horovod-288 (NCCL 2.2.12: no "NCCL" before the level)


def test_nccl_22_lines_without_the_nccl_word_are_nccl_lines() -> None:
    facts = parse_lines(NcclLog, NCCL_22)
    assert sorted(f.node for f in kinds(facts, "nccl.log")) == ["C4140-V100-1", "C4140-V100-2"]
    assert {f.reason for f in kinds(facts, "nccl.ib_unavailable")} == {"no_verbs_lib"}
    assert not kinds(parse_lines(NcclLog, "2024-01-01 12:00:00 [0] INFO loading the model\n"), "nccl.log")


ACCELERATE_MULTILINE = """\
accelerate launch --config_file ./ds_zero2_config.yaml \\
    --num_processes $WORKER_GPU \\
    --num_machines $WORKER_NUM \\
    --machine_rank $WORKER_IDX \\
    --main_process_ip $HOST0 \\
    --main_process_port $PORT0 \\
    src/run_sft.py ${train_sft_args}
"""                                   # fixtures/cases/rank-llamafactory-176, command.txt verbatim


def test_a_command_continued_with_backslashes_keeps_its_launchers_flags() -> None:
    from probes.launch_command import LaunchCommand
    got = {(f.launcher, f.name, f.value, f.origin.line) for f in parse_lines(LaunchCommand, ACCELERATE_MULTILINE)}
    assert ("accelerate", "num_machines", "$WORKER_NUM", 3) in got
    assert ("accelerate", "main_process_port", "$PORT0", 6) in got


def test_flags_after_a_line_that_is_not_continued_are_not_the_launchers() -> None:
    from probes.launch_command import LaunchCommand
    text = "accelerate launch train.py\n    --num_machines 4 \\\n"
    assert not [f for f in parse_lines(LaunchCommand, text) if f.name == "num_machines"]


STORE_TIMEOUT_WRAPPED = """\
(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out after 1800s while trying to connect to (172.17.0.2
, 44737).
"""                                   # fixtures/cases/addr-openrlhf-265: the paste wrapped after the host


def test_store_timeout_wrapped_after_the_host_still_names_the_host() -> None:
    (err,) = kinds(parse_lines(LaunchErrors, STORE_TIMEOUT_WRAPPED), "net.connect_error")
    assert (err.transport, err.outcome, err.host, err.port, err.origin.line) == ("store", "timeout", "172.17.0.2", -1, 1)


def test_store_timeout_with_host_and_port_on_one_line_keeps_its_port() -> None:
    line = "[E socket.cpp:860] [c10d] The client socket has timed out after 900s while trying to connect to (ip-192-168-1-95, 12234)\n"
    (err,) = kinds(parse_lines(LaunchErrors, line), "net.connect_error")    # aws-hpc-tutorials#448
    assert (err.host, err.port) == ("ip-192-168-1-95", 12234)


OFI_LAST_ERROR = """\
[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL version 2.20.5
[rank1]: ncclInternalError: Internal check failed.
[rank1]: Last error:
[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0
"""                                   # fixtures/cases/port-blocked-aws-ofi-nccl-663


def test_aws_ofi_nccl_warn_repeated_under_last_error_is_a_warn() -> None:
    from probes.nccl_errors import NcclErrors
    (warn,) = kinds(parse_lines(NcclErrors, OFI_LAST_ERROR), "nccl.warn")
    assert (warn.origin.line, warn.message) == (4, "NET/OFI Unable to insert remote address into address vector for device 1. RC: 0")


def test_healthy_efa_run_gives_no_warn() -> None:
    from pathlib import Path
    from probes.nccl_errors import NcclErrors
    root = Path(__file__).resolve().parents[2] / "fixtures/cases/healthy-awsefaeks-p4d-2node/input"
    for path in sorted(root.iterdir()):     # its NET/OFI INFO lines ('Selected Provider is efa', ...) are no WARN
        assert not kinds(parse_lines(NcclErrors, path.read_text()), "nccl.warn"), path.name


C10D_LISTEN_EADDRINUSE = """\
[W socket.cpp:426] [c10d] The server socket has failed to listen on [::]:38429 (errno: 98 - Address already in use).
[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:38429 (errno: 98 - Address already in use).
"""                                   # fixtures/cases/port-in-use-drivelm-40-srun-launch (DriveLM#40)

C10D_LISTEN_ANY = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
                   "address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n")


def test_c10d_listen_warning_names_its_port_like_the_bind_warning() -> None:
    binds = kinds(parse_lines(LaunchErrors, C10D_LISTEN_EADDRINUSE), "net.bind_error")
    assert binds and {(b.host, b.port) for b in binds} == {("::", 38429)}     # no port-less (-1) bind error


def test_listen_on_any_address_takes_the_port_from_the_bind_clause() -> None:
    (bind,) = kinds(parse_lines(LaunchErrors, C10D_LISTEN_ANY), "net.bind_error")
    assert (bind.host, bind.port) == ("::", 29500)


TRTLLM_PY_WORLD = "AssertionError: Engine world size (2) != Runtime world size (1)\n"      # TensorRT-LLM#108
TRTLLM_PY_WORLD_PP = "AssertionError: Engine world size (2 * 1) != Runtime world size (1)\n"   # TensorRT-LLM#753
TRTLLM_CPP_WORLD = ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/home/jenkins/agent/"
                    "workspace/LLM/release-0.8/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:90)\n")
TRTLLM_CPP_WORLD_NEW = ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: MPI size 1 != TP size 2 * PP size 1\n")  # TRT-LLM#1992
TRTLLM_EXECUTOR_WORLD = ("[TensorRT-LLM][ERROR] Assertion failed: With communicationMode kLEADER, MPI worldSize is expected to "
                         "be equal to tp*pp when participantIds are not specified\n")          # TensorRT-LLM#2021
TRTLLM_MPI_INFO = "[TensorRT-LLM][INFO] MPI size: 2, rank: 0\n"      # a healthy start: the runtime's own world size


def test_tensorrt_llm_engine_layout_differing_from_the_mpi_world_is_a_launch_config_error() -> None:
    whats = [kinds(parse_lines(LaunchErrors, text), "launch.config_error")[0].what
             for text in (TRTLLM_PY_WORLD, TRTLLM_PY_WORLD_PP, TRTLLM_CPP_WORLD, TRTLLM_CPP_WORLD_NEW, TRTLLM_EXECUTOR_WORLD)]
    assert whats == ["world size: the engine is laid out for 2 ranks (tp * pp), 1 MPI process(es) run it",
                     "world size: the engine is laid out for 2 ranks (tp * pp), 1 MPI process(es) run it",
                     "world size: the MPI world size differs from the engine's tp * pp",
                     "world size: the engine is laid out for 2 ranks (tp * pp), 1 MPI process(es) run it",
                     "world size: the MPI world size differs from the engine's tp * pp"]


def test_tensorrt_llm_reporting_its_mpi_size_is_no_error() -> None:
    assert not kinds(parse_lines(LaunchErrors, TRTLLM_MPI_INFO), "launch.config_error")


def test_model_placement_refusals_are_read_as_a_device_mismatch() -> None:
    """The libraries' own refusals of a model placement that does not fit the distributed mode (held-out batch AV)."""
    ddp = ("ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
           "single-device/multiple-device GPU modules or CPU modules, but got device_ids [0], output_device 0, and module "
           "parameters {device(type='cuda', index=0), device(type='cuda', index=1)}.\n")          # zero_nlp#115 (one line)
    accelerate_8bit = ("You can't train a model that has been loaded in 8-bit precision on a different device than the "
                       "one you're training on.\n")                                              # trl#722
    accelerate_auto = ("ValueError: You can't train a model that has been loaded with `device_map='auto'` in any "
                       "distributed mode. Please rerun your script specifying `--num_processes=1` or by launching with "
                       "`python {{myscript.py}}`.\n")                                             # Qwen PR 833's log
    zero3 = "ValueError: DeepSpeed Zero-3 is not compatible with `low_cpu_mem_usage=True` or with passing a `device_map`.\n"
    old_ddp = ("DistributedDataParallel device_ids and output_device arguments only work with single-device CUDA modules, "
               "but got device_ids 1\n")                                                           # pytorch#46821 (torch 1.x)
    for text, devices in ((ddp, "cuda:0, cuda:1"), (accelerate_8bit, ""), (accelerate_auto, ""), (old_ddp, "")):
        assert [(m.sign, m.devices) for m in kinds(parse_lines(LaunchErrors, text), "launch.device_mismatch")] == [
            ("placement_vs_distributed", devices)], text
    # ZeRO-3's refusal names two options, one that frameworks pass themselves (LMFlow#686, LlamaFactory#199): its own sign
    assert [m.sign for m in kinds(parse_lines(LaunchErrors, zero3), "launch.device_mismatch")] == ["zero3_loading_option"]
    # near misses: an advice line naming device_map, and a single-process load log
    for text in ("Make sure you loaded the model on the correct device using device_map\n",
                 "Loading checkpoint shards: 100%|##########| 2/2 [00:03<00:00, device_map='auto']\n"):
        assert not kinds(parse_lines(LaunchErrors, text), "launch.device_mismatch")


def test_trl_vllm_device_past_the_visible_gpus_is_an_ordinal_error() -> None:
    line = ("ValueError: The requested device for vllm (cuda:1) is not available. You are likely using vLLM without "
            "restricting the number of GPUs for training. Set the `--num_processes` argument to a value lower than the "
            "number of GPUs available on your machine—typically, reducing it by one is sufficient. In your case: "
            "`--num_processes 0`.\n")                                                          # trl#2826 (held-out batch AV)
    assert [e.device for e in kinds(parse_lines(LaunchErrors, line), "launch.ordinal_error")] == [1]
    assert not kinds(parse_lines(LaunchErrors, "INFO vllm device cuda:1 is available\n"), "launch.ordinal_error")


# NCCL's duplicate-GPU sentence without its "Duplicate GPU detected :" prefix, as an engineer re-posted it
# (fixtures/cases/rank-blog-deepseek-a100-duplicate-gpu-device-order), and NCCL's own wording (NVIDIA/nccl init.cc).
DUPLICATE_NO_PREFIX = "Error: rank 27 and rank 19 both on CUDA device 53000 (PCI 53:00.0)\n"
DUPLICATE_NCCL = ("node1:2210:2290 [1] init.cc:521 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA "
                  "device 1a000\n")
NOT_A_DUPLICATE = "Training rank 3 and rank 4 both on CUDA devices of node 2\n"


def test_duplicate_gpu_sentence_is_read_with_and_without_nccls_prefix() -> None:
    (dup,) = kinds(parse_lines(LaunchErrors, DUPLICATE_NO_PREFIX), "launch.duplicate_gpu")
    assert (dup.rank_a, dup.rank_b, dup.bus_id) == (27, 19, "53000")
    (dup,) = kinds(parse_lines(LaunchErrors, DUPLICATE_NCCL), "launch.duplicate_gpu")
    assert (dup.rank_a, dup.rank_b, dup.bus_id) == (1, 0, "1a000")
    assert not kinds(parse_lines(LaunchErrors, NOT_A_DUPLICATE), "launch.duplicate_gpu")


LISTEN_ANY = ("RuntimeError: The server socket has failed to listen on any local network address. port: 46571, "
              "useIpv6: 0, code: -9\n")          # fixtures/cases/port-in-use-pipelinerl-27-vllm-internal-pg-race
CLIENT_ANY = (" The client socket has failed to connect to any network address of (hcp-bb-03, 52873). The client socket "
              "has failed to connect to hcp-bb-03:52873 (errno: 110 - Connection timed out)\n")
#                                         fixtures/cases/addr-colossalai-examples-207-hostname-timeout: the client's side


def test_c10d_failing_to_listen_on_any_address_is_a_failed_bind_of_its_port() -> None:
    (bind,) = [f for f in parse_lines(LaunchErrors, LISTEN_ANY) if f.KIND == "net.bind_error"]
    assert bind.port == 46571


def test_a_client_failing_to_connect_to_any_address_is_no_bind_error() -> None:
    assert [f for f in parse_lines(LaunchErrors, CLIENT_ANY) if f.KIND == "net.bind_error"] == []


def test_a_privileged_port_refused_is_no_port_in_use() -> None:
    # Not a thread's line: c10d's two sentences as socket.cpp joins them when bind() fails with EACCES (a port below
    # 1024, an unprivileged user). Batch BT's helper saw that cause behind this sentence (ChatGLM-Finetuning#140,
    # Time-LLM#158) but the stored threads did not hold the line itself.
    line = ("RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
            "failed to bind to [::]:520 (errno: 13 - Permission denied).\n")
    assert [f for f in parse_lines(LaunchErrors, line) if f.KIND == "net.bind_error"] == []


PADDLE_STORE_RETRY = ("I1127 21:34:05.015228 3935673 tcp_utils.cc:107] Retry to connect to 0.1.68.146:63314 while the "
                      "server is not yet listening.\n")      # PaddlePaddle/Paddle#48421 (held-out batch FS)
PADDLE_STORE_LISTENS = "I1127 21:31:55.544849 3935673 tcp_utils.cc:181] The server starts to listen on IP_ANY:63314\n"


def test_paddles_store_client_retrying_names_the_address_it_cannot_reach() -> None:
    (f,) = [f for f in parse_lines(LaunchErrors, PADDLE_STORE_RETRY) if f.KIND == "net.connect_error"]
    assert (f.transport, f.host, f.port, f.outcome) == ("store", "0.1.68.146", 63314, "refused")


def test_paddles_store_server_listening_is_no_connect_error() -> None:
    assert [f for f in parse_lines(LaunchErrors, PADDLE_STORE_LISTENS) if f.KIND == "net.connect_error"] == []


CLEMSON = (Path(__file__).resolve().parents[2] / "fixtures" / "cases"
           / "healthy-mlperf-hpc-v30-clemson-18x2a100pcie-openfold-rdzv-keepalive" / "input")
RDZV_JOIN_TIMEOUT = ("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n")   # the agent giving up joining


def test_a_failed_keep_alive_write_is_no_rendezvous_timeout() -> None:
    """torch's elastic agent warns once per node when a keep-alive write fails; after a run's success line every
    node prints it (MLPerf HPC v3.0 Clemson OpenFold, held-out batch FZ): the join did not time out."""
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(CLEMSON.iterdir()))
    assert "keep-alive heartbeat" in text
    assert [f for f in parse_lines(LaunchErrors, text) if f.KIND == "rdzv.timeout"] == []
    assert [f.KIND for f in parse_lines(LaunchErrors, RDZV_JOIN_TIMEOUT)] == ["rdzv.timeout"]


VLLM_WORLD = ("  Value error, World size (2) is larger than the number of available GPUs (1) in this\n")   # batch FY
VLLM_HEALTHY = "INFO 04-09 07:12:01 [config.py:1604] Defaulting to use mp for distributed inference\n"


def test_vllms_world_size_over_the_nodes_gpus_is_a_rank_without_a_gpu() -> None:
    """vLLM refuses tensor-parallel 2 in a pod given one GPU (sirzzang's EKS write-up): rank 1 would need GPU 1."""
    (f,) = [f for f in parse_lines(LaunchErrors, VLLM_WORLD) if f.KIND == "launch.ordinal_error"]
    assert f.device == 1
    assert [f for f in parse_lines(LaunchErrors, VLLM_HEALTHY) if f.KIND == "launch.ordinal_error"] == []
