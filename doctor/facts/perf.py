"""Facts about speed: profiler-trace steps and ranks, cross-rank skew, collective bandwidth, GPU utilisation.

Times are milliseconds, fractions are of the step time (0..1), bandwidths GB/s (1e9 bytes per second).
A trace's facts carry the event index in traceEvents as their origin line, so evidence points at an event.
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class TraceStep(Fact):
    """One training step of one rank. device: gpu (kernels in the trace) or cpu (CPU-only trace, e.g. gloo).

    compute/comm are unions of compute and communication time (GPU kernels, or CPU ops and gloo transfers);
    exposed_comm is communication with no compute beside it; idle is the step with neither (on a GPU trace,
    the GPU doing nothing); idle_before is the idle stretch before the step's first kernel (the input pipeline).
    """

    KIND = "trace.step"
    step: int = -1
    device: str = "cpu"
    step_ms: float = -1
    compute_ms: float = -1
    comm_ms: float = -1
    exposed_comm_ms: float = -1
    idle_ms: float = -1
    idle_before_ms: float = -1
    dataloader_ms: float = -1
    h2d_ms: float = -1
    h2d_bytes: float = -1
    compute_frac: float = -1
    exposed_comm_frac: float = -1
    idle_frac: float = -1
    idle_before_frac: float = -1
    dataloader_frac: float = -1
    top_comm: str = ""               # the longest communication kernel/op of the step


@fact
class TraceRank(Fact):
    """One rank's trace: medians over its steps, the worst step for each concern, and HTA-style totals.

    hta_* follow HolisticTraceAnalysis' definitions over kernels launched before the last ProfilerStep:
    percentages of the span from the first kernel start to the last kernel end; overlap_pct is the share of
    communication time with compute running beside it.
    """

    KIND = "trace.rank"
    device: str = "cpu"
    backend: str = ""
    world_size: int = -1
    gpu_name: str = ""
    local_gpus: int = 0
    steps: int = 0
    step_ms: float = -1
    compute_frac: float = -1
    comm_frac: float = -1
    exposed_comm_frac: float = -1
    idle_frac: float = -1
    idle_before_frac: float = -1
    dataloader_frac: float = -1
    h2d_frac: float = -1
    dataloader_step: int = -1        # the step that waited longest for data
    dataloader_ms: float = -1
    exposed_step: int = -1           # the step with the most exposed communication
    exposed_comm_ms: float = -1
    top_comm: str = ""
    hta_idle_pct: float = -1
    hta_compute_pct: float = -1
    hta_non_compute_pct: float = -1
    hta_comm_pct: float = -1
    overlap_pct: float = -1
    events: int = 0
    truncated: bool = False


@fact
class TraceCollectives(Fact):
    """A rank's collectives in order (the input of the cross-rank skew): parallel tuples, one entry each."""

    KIND = "trace.collectives"
    steps: tuple[int, ...] = ()
    ops: tuple[str, ...] = ()          # all_reduce, all_gather, ...
    names: tuple[str, ...] = ()
    durations_ms: tuple[float, ...] = ()
    events: tuple[int, ...] = ()
    step_ms: float = -1
    dataloader_frac: float = -1


@fact
class TraceJob(Fact):
    """The traces of one job seen together: ranks, and the least exposed communication of any rank
    (waiting for a slow peer looks like communication; the least-waiting rank shows the transfer's own cost)."""

    KIND = "trace.job"
    ranks: int = 0
    step_ms: float = -1
    min_exposed_comm_frac: float = -1
    max_exposed_comm_frac: float = -1
    least_exposed_rank: int = -1


@fact
class TraceStraggler(Fact):
    """A rank that arrives last at collectives: the others' collectives last longer while they wait for it."""

    KIND = "trace.straggler"
    collectives: int = 0             # collectives seen on every rank
    last_frac: float = -1            # share of those where this rank arrived last
    waited_for_frac: float = -1           # share of all waiting at collectives that was waiting for this rank
    wait_frac: float = -1            # the others' waiting for it, per step, over the step time
    wait_ms: float = -1              # the longest single wait it caused
    step: int = -1                   # ... in this step
    kernel: str = ""                 # ... at this collective
    dataloader_frac: float = -1      # this rank's own DataLoader wait (a slow input pipeline makes a straggler)
    compute_ratio: float = -1        # its compute over the median of the other ranks'


@fact
class CollectiveAbsent(Fact):
    """A rank missing from a collective that the other ranks entered (rank is the absent one)."""

    KIND = "trace.collective_absent"
    step: int = -1
    op: str = ""                     # all_reduce, all_gather, ...
    index: int = -1                  # the n-th collective of this op in the step (1-based)
    kernel: str = ""
    present_ranks: int = 0
    waited_ms: float = -1            # how long the present ranks sat in it
    typical_ms: float = -1           # median duration of this op in the traces


@fact
class CollectiveBandwidth(Fact):
    """The best bus bandwidth a rank's NCCL collectives reached on large messages, against its link class."""

    KIND = "trace.collective_bw"
    step: int = -1
    kernel: str = ""
    op: str = ""
    bytes: float = -1
    busbw_gbps: float = -1
    link: str = ""                   # nvlink | pcie | unknown (from the GPU model in deviceProperties)
    link_gbps: float = -1            # what that link class carries for this GPU generation
    link_frac: float = -1
    group_size: int = -1
    local_gpus: int = 0
    single_node: bool = False        # the group fits on the GPUs this host lists


@fact
class GpuUtilisation(Fact):
    """Utilisation of one GPU over a sampling window (nvidia-smi dmon / --query-gpu logs, or NVML live)."""

    KIND = "gpu.utilisation"
    gpu: int = -1
    samples: int = 0
    window_s: float = -1
    sm_mean: float = -1              # percent
    sm_p90: float = -1
    low_frac: float = -1             # share of samples below 30 %
    spiky: bool = False              # swings between idle and busy (coefficient of variation >= 0.5)
    sm_cv: float = -1
    mem_bw_mean: float = -1          # memory-controller utilisation, percent
    pcie_rx_mbps: float = -1
    pcie_tx_mbps: float = -1
    nvlink_rx_mbps: float = -1
    nvlink_tx_mbps: float = -1


@fact
class ProfilerTableRow(Fact):
    """A row of a profiler's printed summary for the input pipeline, with its share of the profiled time:
    torch.profiler's table (`prof.key_averages().table()`): the `enumerate(DataLoader)#...__next__` record;
    PyTorch Lightning's SimpleProfiler report: `[_TrainingEpochLoop].train_dataloader_next` (`get_train_batch`
    before Lightning 1.5)."""

    KIND = "profile.dataloader"
    name: str = ""                   # the row's name as printed (truncated by the table)
    cpu_total_frac: float = -1       # its share of the profiled time, 0..1: torch.profiler's "CPU total %" column,
                                     # Lightning's "Percentage %" (of the wall time the profiler covered)
    calls: int = -1                  # "# of Calls" / "Num calls": batches fetched while profiling
    table: str = "torch.profiler"    # torch.profiler | lightning (which table the row comes from)
