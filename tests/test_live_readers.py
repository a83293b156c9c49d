"""The Python readers as the runner starts them (own process, killable): NVML through a stand-in module, since no
GPU exists here; TCP reachability against real sockets on loopback. Their output goes through the same parsers
as uploaded files."""
from __future__ import annotations

import contextlib

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from doctor.probing.contract import Failed, Ok, parse_document
from doctor.probing.live import LiveProbe, reader, run_probe
from probes.nvml import NvmlReadings
from probes.reachability import ReachabilityReport

FAKES = Path(__file__).resolve().parent / "fakes"


@pytest.fixture
def fake_nvml(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", str(FAKES))
    dead = subprocess.Popen(["true"])                 # exits at once and is not reaped: a zombie holding "GPU memory"
    time.sleep(0.2)
    monkeypatch.setenv("DOCTOR_FAKE_PIDS", f"{os.getpid()},{dead.pid},{2**22 - 7}")
    yield
    dead.wait()


def test_nvml_reader_output_replays_through_the_nvml_parser(fake_nvml: None) -> None:
    result = run_probe(LiveProbe("nvml", reader("probes.nvml_read:read_live", "50"), "nvml", 20))
    assert isinstance(result.outcome, Ok), result.stderr
    assert NvmlReadings.sniff(result.stdout)
    facts = parse_document(NvmlReadings, result.stdout, source="NVML", node="n1")
    kinds = {f.KIND for f in facts}
    assert {"gpu.device", "gpu.pcie", "gpu.ecc", "gpu.throttle", "gpu.fabric", "nvlink.link", "gpu.process", "gpu.p2p",
            "gpu.fault"} <= kinds
    pcie = {f.gpu: (f.width, f.width_max, f.width_degraded, f.load) for f in facts if f.KIND == "gpu.pcie"}
    assert pcie == {0: (16, 16, False, "busy"), 1: (8, 16, True, "busy")}
    states = sorted(f.state for f in facts if f.KIND == "gpu.process")
    assert states == ["not_visible", "running", "zombie"]
    assert [(f.gpu, f.link) for f in facts if f.KIND == "nvlink.link" and not f.active] == [(1, 3)]
    assert [(f.xid, f.bus_id) for f in facts if f.KIND == "gpu.fault"] == [(79, "00000000:2A:00.0")]
    ecc = next(f for f in facts if f.KIND == "gpu.ecc" and f.gpu == 1)
    assert ecc.volatile_uncorrected == 1 and ecc.remap_pending and ecc.reset_needed
    assert {f.reason for f in facts if f.KIND == "gpu.throttle" and f.hardware} == {"hw_slowdown", "hw_thermal_slowdown"}
    assert all(f.ok for f in facts if f.KIND == "gpu.fabric")


def test_nvml_reader_that_hangs_in_the_driver_is_killed(fake_nvml: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCTOR_FAKE_NVML", "hang")
    started = time.monotonic()
    result = run_probe(LiveProbe("nvml", reader("probes.nvml_read:read_live"), "nvml", 20, gpu=True), timeout_cap=1.5)
    assert isinstance(result.outcome, Failed) and result.reason.startswith("timed out after 1.5s")
    assert time.monotonic() - started < 5


def _bound(held: contextlib.ExitStack) -> int:
    """A port of 127.0.0.1 bound and not listening, kept until `held` closes: connecting to it is refused. Ports
    bound and released one after another can repeat (the kernel hands a released port out again)."""
    s = held.enter_context(socket.socket())
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def test_reachability_checks_master_and_many_peers_in_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
        monkeypatch.setenv("MASTER_PORT", str(server.getsockname()[1]))
        with contextlib.ExitStack() as held:     # bound, not listening: refused; held open so no two ports are the same
            closed = [f"127.0.0.1:{_bound(held)}" for _ in range(30)]
            started = time.monotonic()
            result = run_probe(LiveProbe("reachability", reader("probes.reachability:read_live", *closed), "reachability"))
            elapsed = time.monotonic() - started
    assert isinstance(result.outcome, Ok), result.stderr
    facts = parse_document(ReachabilityReport, result.stdout, source="reach", node="n1")
    store = [f for f in facts if f.purpose == "store"]
    assert [(f.outcome, f.reachable) for f in store] == [("open", True)]
    assert sorted({f.outcome for f in facts if f.purpose == "peer"}) == ["refused"] and len(facts) == 31
    assert elapsed < 5, f"31 endpoints took {elapsed:.1f}s"
