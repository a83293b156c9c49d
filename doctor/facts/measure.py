"""Facts from benchmarks and profiles, the expectations they are judged against, and the verdicts.

Units are fixed per field so rules compare plain numbers: network bandwidth in Gbit/s (what iperf3 and
link rates speak), collective bandwidth in GB/s (what nccl-tests prints), latency in microseconds,
shares as fractions 0..1.

`bench.expectation` is the contract between whoever knows what a link *should* deliver (the user's
`--expect link_gbps=10` or expectations file, or the topology probes that know the NIC and its rate) and
the judge in doctor/verdicts.py: one metric, one value, one basis sentence that the report quotes.
"""
from __future__ import annotations


from doctor.facts.base import Fact, fact

# metric -> (unit, "floor" when a measurement below the value is bad, "ceiling" when one above it is)
METRICS: dict[str, tuple[str, str]] = {
    "link_gbps": ("Gbit/s", "floor"),          # TCP throughput between two nodes (iperf3)
    "rdma_gbps": ("Gbit/s", "floor"),          # RDMA bandwidth of one NIC pair (ib_write_bw / ib_read_bw)
    "rdma_lat_us": ("us", "ceiling"),          # RDMA latency (ib_write_lat / ib_read_lat), typical
    "busbw_gbs": ("GB/s", "floor"),            # nccl-tests bus bandwidth at large messages (peak over sizes)
    "nccl_kernel_share": ("share", "ceiling"),  # NCCL kernels' share of GPU kernel time (nsys stats)
    "gpu_idle_share": ("share", "ceiling"),     # share of the profiled span with no kernel running (nsys stats)
}


@fact
class BenchExpectation(Fact):
    """What a measurement should reach. scope: '' for the whole job, else a node, a node pair or a device."""

    KIND = "bench.expectation"
    metric: str = ""               # a key of METRICS
    value: float = -1
    unit: str = ""
    scope: str = ""
    basis: str = ""                # "--expect link_gbps=10", "expectations.yaml", "topology: mlx5_0 200 Gb/sec"


@fact
class BandwidthSample(Fact):
    """One bandwidth measurement between this node and a peer (iperf3, perftest)."""

    KIND = "bench.bandwidth"
    tool: str = ""                 # iperf3 | iperf (iperf 2) | ib_write_bw | ib_read_bw | ib_send_bw
    metric: str = ""               # link_gbps | rdma_gbps
    gbps: float = -1               # Gbit/s
    peer: str = ""                 # remote host or address
    local: str = ""                # this end's address, when the tool prints it
    path: str = ""                 # which way the data went: "10.0.0.2 -> 10.0.0.1"
    device: str = ""               # RDMA device (mlx5_0) or '' for TCP
    gpu: bool = False              # perftest --use_cuda: the buffers live in GPU memory
    streams: int = 1
    seconds: float = -1
    retransmits: int = -1          # TCP retransmits (iperf3 sender), -1 unknown
    msg_bytes: int = -1            # perftest message size of the reported row
    role: str = ""                 # sender | receiver | client | server


@fact
class LatencySample(Fact):
    """One latency measurement (ib_write_lat / ib_read_lat / ib_send_lat), microseconds."""

    KIND = "bench.latency"
    tool: str = ""
    metric: str = "rdma_lat_us"
    typical_us: float = -1
    avg_us: float = -1
    p99_us: float = -1
    msg_bytes: int = -1
    device: str = ""
    gpu: bool = False


@fact
class CollectiveSize(Fact):
    """One message size of a nccl-tests run (out-of-place figures; wrong counts both columns)."""

    KIND = "bench.collective_size"
    op: str = ""
    size: int = -1                 # bytes
    time_us: float = -1
    algbw: float = -1              # GB/s
    busbw: float = -1              # GB/s
    wrong: int = 0                 # #wrong elements, out-of-place + in-place


@fact
class KernelShare(Fact):
    """From `nsys stats` cuda_gpu_kern_sum: how much GPU kernel time NCCL kernels take."""

    KIND = "profile.kernels"
    kernels: int = 0               # distinct kernel names
    total_s: float = -1            # all kernels
    nccl_s: float = -1
    nccl_share: float = -1         # nccl_s / total_s
    top_nccl: str = ""             # the NCCL kernel with the most time


@fact
class GpuIdle(Fact):
    """From `nsys stats` cuda_gpu_trace: gaps on the GPU between one kernel or copy and the next."""

    KIND = "profile.gpu_idle"
    span_s: float = -1             # first start to last end
    busy_s: float = -1             # union of kernel/copy intervals
    idle_share: float = -1
    largest_gap_ms: float = -1
    gaps_over_1ms: int = 0


@fact
class CudaApiShare(Fact):
    """From `nsys stats` cuda_api_sum: where host-side CUDA API time goes."""

    KIND = "profile.cuda_api"
    total_s: float = -1
    sync_share: float = -1         # cuda*Synchronize / cuStreamSynchronize... share of API time
    top_call: str = ""
    top_share: float = -1


@fact
class BenchVerdict(Fact):
    """A measurement judged against an expectation (computed by aggregation): both figures and their ratio."""

    KIND = "bench.verdict"
    metric: str = ""
    tool: str = ""
    measured: float = -1
    expected: float = -1
    unit: str = ""
    ratio: float = -1              # measured / expected (for a ceiling: expected / measured), < 1 is worse
    percent: int = -1              # measured as a percentage of expected (bandwidth) or expected of measured (ceilings)
    measured_text: str = ""        # "0.79 Gbit/s", "61%": the figures as the report prints them
    expected_text: str = ""
    basis: str = ""                # where the expectation came from
    subject: str = ""              # what was measured: "10.213.0.2 -> 10.213.0.1", "mlx5_0 GPU buffers", ...
    multi_node: bool = True
    hosts: int = -1                # nccl-tests: the hosts its own output names (device table, NCCL prefixes); -1 none
