"""A kernel module the kernel refused, in modprobe's and the kernel log's words (issue 12, held-out batch BN).

The texts are real output: the files of fixtures/cases/gdr-gpu-operator-2868-peermem-abi-mismatch (NVIDIA/gpu-operator
#2868), read as they are; the near misses are lines of a module loading and of a userspace 'Unknown symbol' message.
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.module_load_errors import ModuleLoadErrors

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "cases" / "gdr-gpu-operator-2868-peermem-abi-mismatch" / "input"


def _failed(text: str) -> list:
    return [f for f in parse_lines(ModuleLoadErrors, text) if f.KIND == "kernel.module_load_failed"]


def _case_text() -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(CASE.iterdir()))


def test_modprobe_could_not_insert_names_the_module_and_the_reason() -> None:
    found = [(f.name, f.reason) for f in _failed(_case_text()) if f.reason == "Invalid argument"]
    assert found == [("nvidia_peermem", "Invalid argument")]


def test_the_kernels_symbol_version_lines_name_the_module() -> None:
    reasons = {f.reason for f in _failed(_case_text()) if f.name == "nvidia_peermem"}
    assert "disagrees about version of symbol ib_register_peer_memory_client" in reasons
    assert "Unknown symbol ib_register_peer_memory_client (err -22)" in reasons


def test_insmod_with_a_path_and_a_dashed_name() -> None:
    (f,) = _failed("insmod: ERROR: could not insert module /lib/modules/5.15.0/extra/nvidia-peermem.ko: "
                   "Unknown symbol in module\n")
    assert (f.name, f.reason) == ("nvidia_peermem", "Unknown symbol in module")


def test_a_module_that_loaded_is_no_failure() -> None:
    assert _failed("[   12.345678] nvidia_peermem: module verification failed: signature and/or required key missing - "
                   "tainting kernel\nnvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)\n") == []


TALOS = Path(__file__).resolve().parents[2] / "fixtures" / "cases" / "gdr-talos-12021-peermem-inbox-no-p2pdma" / "input"


def test_talos_machined_names_the_module_it_could_not_load() -> None:
    """Talos loads modules itself and says so in `talosctl dmesg` (siderolabs/talos#12021, held-out batch FO)."""
    found = [(f.name, f.reason) for f in _failed((TALOS / "dmesg.txt").read_text(encoding="utf-8"))]
    assert found == [("nvidia_peermem", "load nvidia_peermem failed: invalid argument")]


def test_talos_loading_a_module_is_no_failure() -> None:
    assert _failed('loaded module "nvidia_peermem"\nloading module "nvidia_peermem"\n') == []
