"""A minimal gather of this node, in-process and fast (well under a second), for when the live node probes
are not in this build: host name, the environment variables that steer NCCL/gloo/torch, package versions,
/dev/shm, the memlock limit, the GPU count and the NCCL net plugin.

Text goes through the same line probes as uploaded files (env_vars, versions), so a live value and a
logged one become the same fact. Each part also reports a probe.status fact: absent and broken are facts.

Test hook: DOCTOR_TEST_VERSIONS="nccl=2.18.1,torch=2.0.0" replaces the versions this node reports for
those names (the multi-node lab tests use it to make one node look different; never set it in production).
"""
from __future__ import annotations

import glob
import importlib.metadata
import os
import re
import resource
import socket
import sys
from dataclasses import replace
from pathlib import Path

from doctor.facts import Fact
from doctor.facts.cluster import NodeInfo
from doctor.facts.env import PackageVersion, ShmSize, Ulimit
from doctor.facts.launch import HostName
from doctor.facts.status import ProbeStatus
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import address_class

TEST_VERSIONS = "DOCTOR_TEST_VERSIONS"
ENV_PREFIXES = ("NCCL_", "GLOO_", "TORCH_", "TORCHELASTIC_", "PYTORCH_", "MASTER_", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
                "WORLD_SIZE", "LOCAL_WORLD_SIZE", "UCX_", "FI_", "LD_LIBRARY_PATH")
PACKAGES = ("torch", "nvidia-nccl-cu11", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "nvidia-cuda-runtime-cu11",
            "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu13", "deepspeed")
PLUGIN_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/local/lib", "/usr/lib", "/opt/amazon/ofi-nccl/lib",
               "/opt/hpcx/nccl_rdma_sharp_plugin/lib")
_DRIVER = re.compile(r"Kernel Module\s+(?:for\s+\S+\s+)?(?P<v>\d+\.\d+(?:\.\d+)?)")


def node_name() -> str:
    return socket.gethostname() or "node"


def gather() -> list[Fact]:
    node = node_name()
    facts: list[Fact] = [HostName(node=node, name=node, loopback=address_class(node)[0],
                                  origin=_origin("gethostname()", node))]
    for part in (environment, versions, dev_shm, memlock):
        facts += part(node)
    return facts


def with_job_facts(facts: list[Fact]) -> list[Fact]:
    """facts plus what `doctor cluster` needs that a node probe does not give (cluster.node), with the test hook applied."""
    node = node_name()
    if not any(f.KIND == "cluster.node" for f in facts):
        facts = facts + [node_info(node)]
    return apply_test_versions(facts, node)


def _status(node: str, probe: str, status: str = "ok", reason: str = "") -> ProbeStatus:
    return ProbeStatus(node=node, probe=probe, status=status, reason=reason)


def run_line_probe(probe_cls: type[LineProbe], text: str, source: str, node: str) -> list[Fact]:
    ctx = ParseContext(source=source, node=node, mode="live", probe=probe_cls.name)
    probe = probe_cls(ctx)
    for number, line in enumerate(text.splitlines(), start=1):
        if probe.wants(line):
            probe.feed(number, line)
    probe.finish()
    return ctx.facts


def environment(node: str) -> list[Fact]:
    from probes.env_vars import EnvVars
    text = "\n".join(f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES) and "\n" not in v)
    return run_line_probe(EnvVars, text, "environment", node) + [_status(node, "environment")]


def versions(node: str) -> list[Fact]:
    from probes.versions import Versions
    lines = []
    for name in PACKAGES:
        try:
            lines.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    torch = sys.modules.get("torch")           # only when the caller already imported it: never import it here
    if torch is not None:
        if getattr(torch.version, "cuda", None):
            lines.append(f"CUDA used to build PyTorch: {torch.version.cuda}")
        nccl = _nccl_version(torch)
        if nccl:
            lines.append(f"nccl=={nccl}")
    driver = _driver_version()
    if driver:
        lines.append(f"Driver Version: {driver}")
    return run_line_probe(Versions, "\n".join(lines), "versions (importlib.metadata, torch, /proc/driver/nvidia)", node) + \
        [_status(node, "versions")]


def _nccl_version(torch: object) -> str:
    try:
        v = torch.cuda.nccl.version()          # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a CPU build has no NCCL
        return ""
    return ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)


def _driver_version() -> str:
    try:
        m = _DRIVER.search(Path("/proc/driver/nvidia/version").read_text(errors="replace"))
    except OSError:
        return ""
    return m["v"] if m else ""


def dev_shm(node: str) -> list[Fact]:
    try:
        st = os.statvfs("/dev/shm")
    except OSError as exc:
        return [_status(node, "dev_shm", "failed", f"statvfs /dev/shm: {exc.strerror}")]
    size = float(st.f_blocks * st.f_frsize)
    return [ShmSize(node=node, size=size, writable=os.access("/dev/shm", os.W_OK), origin=_origin("statvfs /dev/shm", f"size={size:.0f}")),
            _status(node, "dev_shm")]


def memlock(node: str) -> list[Fact]:
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    kb = -1 if soft == resource.RLIM_INFINITY else soft // 1024
    text = f"max locked memory (kbytes, -l) {'unlimited' if kb < 0 else kb}"
    return [Ulimit(node=node, name="memlock", kb=kb, origin=_origin("getrlimit(RLIMIT_MEMLOCK)", text)), _status(node, "memlock")]


def node_info(node: str) -> NodeInfo:
    gpus, source = gpu_count()
    plugin = net_plugin()
    rdma = rdma_devices()
    text = f"gpus={gpus} ({source}) net_plugin={plugin or 'none'} rdma_devices={rdma}"
    return NodeInfo(node=node, gpus=gpus, gpus_source=source, net_plugin=plugin, rdma_devices=rdma,
                    origin=_origin("doctor cluster node info", text))


def rdma_devices() -> int:
    """RDMA devices the kernel has (/sys/class/infiniband: InfiniBand and RoCE HCAs alike)."""
    try:
        return len(os.listdir("/sys/class/infiniband"))
    except FileNotFoundError:
        return 0
    except OSError:
        return -1


def gpu_count() -> tuple[int, str]:
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_available():      # type: ignore[attr-defined]
                return int(torch.cuda.device_count()), "torch"   # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            pass
    return len([p for p in glob.glob("/dev/nvidia*") if re.fullmatch(r"/dev/nvidia\d+", p)]), "/dev/nvidia*"


def net_plugin() -> str:
    """The NCCL net plugin library NCCL would load: NCCL_NET_PLUGIN's, else libnccl-net.so on the library path."""
    wanted = os.environ.get("NCCL_NET_PLUGIN", "")
    names = [f"libnccl-net-{wanted}.so", f"libnccl-net_{wanted}.so", wanted] if wanted and wanted != "none" else ["libnccl-net.so"]
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d] + list(PLUGIN_DIRS)
    for d in dirs:
        for name in names:
            if "/" not in name and os.path.isfile(os.path.join(d, name)):
                return name
    return ""


def apply_test_versions(facts: list[Fact], node: str) -> list[Fact]:
    raw = os.environ.get(TEST_VERSIONS, "")
    pins = dict(item.split("=", 1) for item in raw.split(",") if "=" in item)
    if not pins:
        return facts
    from probes.versions import Versions
    kept = [f for f in facts if not (isinstance(f, PackageVersion) and f.name in pins)]
    text = "\n".join(f"{name}=={version}" for name, version in pins.items())
    fake = run_line_probe(Versions, text, f"{TEST_VERSIONS} (test hook)", node)
    return kept + [replace(f, node=node) for f in fake]


def _origin(source: str, text: str):  # type: ignore[no-untyped-def]
    from doctor.facts import Origin
    return Origin(source=source, line=0, text=text, probe="local_gather", mode="live")
