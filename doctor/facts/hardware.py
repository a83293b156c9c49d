"""Facts a node reports about its GPUs and host hardware: PCIe links, ECC, clocks, fabric, processes, kernel."""
from __future__ import annotations


from doctor.facts.base import Fact, fact


@fact
class PcieLink(Fact):
    """A device's PCIe link now versus what it can do. -1 = not reported. load: idle | busy | unknown."""

    KIND = "gpu.pcie"
    gpu: int = -1                  # GPU index, -1 for a device that is not (known to be) a GPU
    bus_id: str = ""
    device: str = ""               # what the tool called it (product name, lspci description)
    gen: int = -1
    gen_max: int = -1
    width: int = -1
    width_max: int = -1
    gen_degraded: bool = False     # running below its maximum generation (idle GPUs do this on purpose)
    width_degraded: bool = False   # fewer lanes than the slot and card support: a physical problem
    load: str = "unknown"
    source: str = ""               # nvidia-smi | nvml | lspci | kernel


@fact
class GpuEcc(Fact):
    """ECC counters and page retirement / row remapping state of one GPU. -1 = not reported."""

    KIND = "gpu.ecc"
    gpu: int = -1
    bus_id: str = ""
    volatile_uncorrected: int = -1
    aggregate_uncorrected: int = -1
    volatile_corrected: int = -1
    retired_pages: int = -1
    retirement_pending: bool = False
    remap_pending: bool = False
    remap_failure: bool = False
    reset_needed: bool = False     # a page retirement or row remap waits for a GPU reset


@fact
class GpuThrottle(Fact):
    """One active clocks event (throttle) reason. hardware: the GPU itself slows down (thermal, power brake)."""

    KIND = "gpu.throttle"
    gpu: int = -1
    bus_id: str = ""
    reason: str = ""               # idle | sw_power_cap | hw_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown | ...
    hardware: bool = False


@fact
class GpuFabric(Fact):
    """NVSwitch fabric registration of one GPU (nvidia-smi -q Fabric, NVML fabric info). ok: Completed/Success."""

    KIND = "gpu.fabric"
    gpu: int = -1
    bus_id: str = ""
    state: str = ""
    status: str = ""
    ok: bool = True


@fact
class GpuProcess(Fact):
    """A process holding GPU memory. state: running | zombie | not_visible (no such pid here) | unknown."""

    KIND = "gpu.process"
    gpu: int = -1
    pid: int = -1
    name: str = ""
    used_bytes: float = -1
    state: str = "unknown"


@fact
class GpuP2p(Fact):
    """Peer-to-peer status of a GPU pair as the driver reports it. status: ok | not_supported | chipset_not_supported | ..."""

    KIND = "gpu.p2p"
    gpu_a: int = -1
    gpu_b: int = -1
    status: str = ""


@fact
class KernelModule(Fact):
    """One loaded kernel module of interest (nvidia, nvidia_peermem, nv_peer_mem, mlx5_ib, ...)."""

    KIND = "kernel.module"
    name: str = ""


@fact
class ModuleLoadFailed(Fact):
    """The kernel refused to load a module: modprobe/insmod "could not insert", or the kernel log's own reason (a symbol
    whose version disagrees with the running kernel's or OFED's, an unknown symbol)."""

    KIND = "kernel.module_load_failed"
    name: str = ""                 # the module, with '-' read as '_' (nvidia-peermem = nvidia_peermem)
    reason: str = ""               # 'Invalid argument', 'disagrees about version of symbol X', 'Unknown symbol X (err -22)'


@fact
class ModuleSummary(Fact):
    """What a complete module listing shows: is the GPU driver, GPUDirect RDMA's peer-memory module, RDMA loaded."""

    KIND = "kernel.modules"
    count: int = 0
    nvidia: bool = False
    peermem: bool = False          # nvidia_peermem or the older nv_peer_mem
    rdma: bool = False             # ib_core / mlx5_ib / other verbs providers


@fact
class ModuleQuery(Fact):
    """A `lsmod | grep <pattern>` transcript: what the pattern could match and what it listed (computed by its parser)."""

    KIND = "kernel.module_query"
    pattern: str = ""
    peermem_covered: bool = False  # the pattern would list nvidia_peermem or nv_peer_mem if it were loaded
    peermem_listed: bool = False   # ... and it did
    nvidia_listed: bool = False    # the NVIDIA driver module is in the listing
    listed: int = 0                # modules listed


@fact
class ModuleInstalled(Fact):
    """`modinfo <name>` found the module file on disk (installed, whether or not it is loaded)."""

    KIND = "kernel.module_installed"
    name: str = ""
    path: str = ""
    loaded: str = "unknown"        # yes | no (a `lsmod | grep` in the same transcript that would list it did not) | unknown


@fact
class Iommu(Fact):
    """The IOMMU setting (kernel command line or boot log). translating: DMA is remapped (on, not passthrough)."""

    KIND = "sys.iommu"
    setting: str = ""              # intel_iommu=on, amd_iommu=on, iommu=pt, DMAR: IOMMU enabled, ...
    translating: bool = False


@fact
class IommuFault(Fact):
    """The IOMMU refused a device's DMA (AMD-Vi IO_PAGE_FAULT, Intel VT-d DMAR fault): one fact per device, on its
    first line."""

    KIND = "sys.iommu_fault"
    device: str = ""               # PCI address as the kernel printed it (0000:07:00.0, 41:00.0)
    driver: str = ""               # the driver that printed it (nvidia, mlx5_core, amdgpu); '' when the line names none
    faults: int = 0                # fault lines for this device in the input
    address: str = ""              # the first faulting address
    access: str = ""               # write | read where the line says (DMAR's "[DMA Write]"); '' for AMD-Vi
    gpu_dma: bool = False          # a GPU's DMA, as the input tells: the nvidia driver printed it (AMD-Vi), or (DMAR,
                                   # which names no driver) the writes of two or more devices were refused


@fact
class PciAcs(Fact):
    """PCIe Access Control Services on a bridge: enabled means peer-to-peer requests are redirected upstream."""

    KIND = "pci.acs"
    bus_id: str = ""
    device: str = ""
    port_type: str = ""            # Root Port | Upstream Port | Downstream Port (a PCIe switch) | '' unknown
    enabled: bool = False
    flags: str = ""                # the ACSCtl flags that are on


@fact
class GpuMemoryUse(Fact):
    """One GPU row of the `nvidia-smi` table (or a gpustat line): memory used of total and utilisation.
    processes: how many processes the table's Processes section lists on this GPU; -1 when the input has no such section."""

    KIND = "gpu.memory_use"
    gpu: int = -1
    used_bytes: float = -1
    total_bytes: float = -1
    used_frac: float = -1
    util: float = -1
    processes: int = -1


@fact
class GpuMemorySkew(Fact):
    """GPU 0 holds more memory than every other GPU of one snapshot in which all of them are in use (derived)."""

    KIND = "gpu.memory_skew"
    gpus: int = 0
    gpu0_bytes: float = -1
    next_bytes: float = -1         # the most any other GPU holds
    excess_bytes: float = -1       # gpu0_bytes - next_bytes
    ratio: float = -1              # gpu0_bytes / next_bytes
