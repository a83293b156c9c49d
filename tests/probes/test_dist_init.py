"""Where distributed init stood when a log ends (probes/dist_init.py, doctor/aggregate_launch.py init_stopped), and
XLA's rendezvous that waits too long, on real inputs of the case base. A log that ends on an init step is context,
not a failure (a healthy excerpt ends so too); one that goes on past it is no init stop."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.judgement import context
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "fixtures" / "cases"


def facts_of(path: Path) -> list:
    return aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)


def stops(path: Path) -> list[tuple[str, str]]:
    return [(f.framework, f.step) for f in facts_of(path) if f.KIND == "launch.init_stopped"]


def test_deepspeed_log_ending_in_init_distributed() -> None:
    """OpenRLHF#11: the last lines are DeepSpeed's 'Initializing TorchBackend ... backend nccl' (a firewall held
    the port)."""
    facts = facts_of(CASES / "port-online-rlhf-11" / "input")
    assert [(f.framework, f.step) for f in facts if f.KIND == "launch.init_stopped"] == [("deepspeed", "init_distributed")]
    assert "init_stopped" in context.features(facts) and not context.shows_failure(facts)


def test_paddle_nccl_context_and_c10d_store_retry() -> None:
    assert stops(CASES / "ifname-paddlefleetx-1054-init-nccl-context-hang" / "input") == [("paddle", "nccl_context")]
    assert stops(CASES / "addr-nemorun-292-rdzv-localhost-port0" / "input") == [("pytorch", "store_connect")]


def test_a_log_that_goes_on_past_init_is_no_init_stop() -> None:
    """DeepSpeed's step and timer lines after init (a lab run), Lightning's 'All distributed processes registered'."""
    assert stops(ROOT / "fixtures" / "format-examples" / "deepspeed-single-node-healthy") == []
    assert stops(CASES / "healthy-lightning-18059-ddp-start" / "input") == []


def test_xla_rendezvous_waiting_is_a_stall_and_a_hang() -> None:
    """JAX#22740: 'This thread has been waiting for `initialize clique for rank 6; ...` for 10 seconds and may be
    stuck': the NCCL clique never formed (RoCE not configured on the NIC)."""
    facts = facts_of(CASES / "roce-jax-22740-irdma-ibv-modify-qp-einval" / "input")
    stalls = [f for f in facts if f.KIND == "collective.stalled"]
    assert [(f.framework, f.op, f.waited_s) for f in stalls] == [("xla", "initialize clique for rank 6", 10.0)]
    assert context.read_symptom(facts) == "hang" and context.shows_failure(facts)
