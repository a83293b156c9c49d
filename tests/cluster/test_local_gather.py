"""The minimal local gather: environment through the env_vars probe, versions, /dev/shm, memlock, GPU count,
the NCCL net plugin, and the DOCTOR_TEST_VERSIONS test hook. No torch import."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from doctor.cluster import local_gather, node_facts
from doctor.facts.cluster import NodeInfo
from doctor.facts.env import EnvVar, PackageVersion, ShmSize, Ulimit
from doctor.facts.status import ProbeStatus


def test_gather_reports_this_node(monkeypatch) -> None:
    monkeypatch.setenv("NCCL_IB_HCA", "mlx5_0:1")
    facts = node_facts.gather()
    env = {f.name: f.value for f in facts if isinstance(f, EnvVar)}
    assert env["NCCL_IB_HCA"] == "mlx5_0:1"
    assert any(isinstance(f, ShmSize) and f.size > 0 for f in facts)
    assert any(isinstance(f, Ulimit) and f.name == "memlock" for f in facts)
    assert any(isinstance(f, PackageVersion) and f.name == "torch" for f in facts)
    assert sum(isinstance(f, NodeInfo) for f in facts) == 1
    assert {f.probe for f in facts if isinstance(f, ProbeStatus)} >= {"environment", "versions", "dev_shm", "memlock"}
    assert all(f.node == local_gather.node_name() for f in facts)


def test_test_hook_replaces_versions(monkeypatch) -> None:
    monkeypatch.setenv("DOCTOR_TEST_VERSIONS", "torch=2.0.0,nccl=2.18.1")
    versions = {f.name: f.version for f in node_facts.gather() if isinstance(f, PackageVersion)}
    assert versions["torch"] == "2.0.0" and versions["nccl"] == "2.18.1"


def test_net_plugin_found_on_the_library_path(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "libnccl-net.so").write_bytes(b"\x7fELF")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    assert local_gather.net_plugin() == "libnccl-net.so"
    monkeypatch.setenv("NCCL_NET_PLUGIN", "ofi")
    assert local_gather.net_plugin() == ""
    (tmp_path / "libnccl-net-ofi.so").write_bytes(b"\x7fELF")
    assert local_gather.net_plugin() == "libnccl-net-ofi.so"


def test_gather_never_imports_torch() -> None:
    code = "import sys; from doctor.cluster import node_facts; node_facts.gather(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False", out.stderr
