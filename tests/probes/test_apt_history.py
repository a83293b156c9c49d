"""apt_history: the GPU-stack and kernel packages apt changed, and by what (issue 12, held-out batch CN).

Real text: shine-cluster#50 and #30 (fixtures/cases/driver-shine-cluster-*), where unattended-upgrades replaced
libnvidia-common-460 under the running driver and nvidia-smi / NVML then failed.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_document
from probes.apt_history import AptHistory

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "cases" / "driver-shine-cluster-50-unattended-upgrade-smi-failed"
MIXED = ("Start-Date: 2024-01-10  06:12:01\n"
         "Commandline: apt-get install -y htop\n"
         "Install: htop:amd64 (3.0.5-7build2), libnl-genl-3-200:amd64 (3.5.0-0.1, automatic)\n"
         "End-Date: 2024-01-10  06:12:03\n"
         "\n"
         "Start-Date: 2024-01-11  06:30:44\n"
         "Commandline: /usr/bin/unattended-upgrade\n"
         "Upgrade: linux-image-5.15.0-92-generic:amd64 (5.15.0-91.101, 5.15.0-92.102), tzdata:amd64 (2023c-0ubuntu0.22.04.2, 2023d-0ubuntu0.22.04)\n"
         "Remove: nvidia-dkms-535:amd64 (535.129.03-0ubuntu0.22.04.1)\n"
         "End-Date: 2024-01-11  06:31:10\n")


def test_the_upgrade_of_the_nvidia_userspace_is_read() -> None:
    text = (CASE / "input" / "apt_history.log").read_text(encoding="utf-8")
    assert AptHistory.sniff(text)
    changes = [f for f in parse_document(AptHistory, text) if f.KIND == "pkg.change"]
    first = changes[0]
    assert (first.name, first.action, first.old, first.new, first.command) == (
        "libnvidia-common-460", "upgrade", "460.73.01-0ubuntu0.20.04.1", "460.80-0ubuntu0.20.04.2", "/usr/bin/unattended-upgrade")


def test_only_the_gpu_stack_and_the_kernel_are_kept() -> None:
    changes = [(f.name, f.action, f.old, f.new) for f in parse_document(AptHistory, MIXED)]
    assert changes == [("linux-image-5.15.0-92-generic", "upgrade", "5.15.0-91.101", "5.15.0-92.102"),
                       ("nvidia-dkms-535", "remove", "535.129.03-0ubuntu0.22.04.1", "")]
