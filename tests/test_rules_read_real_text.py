"""Issue 12: a rule's `fires` test reads real text (a public case in fixtures/cases, a recording in
fixtures/incidents, fixtures/logs or fixtures/probes, a real H200 snapshot), not facts that restate its `where` and not
text written by hand to show it. The rules that have no such test yet are listed below with the reason, so the list
can only shrink: a rule without a real firing test that is not listed fails, and so does a listed rule that has one."""
from __future__ import annotations

from doctor.diagnose import rule_base

RULES, _ = rule_base()

# inputs written by hand or synthesised where the tool or the GPU could not run (each folder's README says so)
NOT_REAL = ("fixtures/format-examples/", "fixtures/nodes/pcie-topology-slow-allreduce",
            "fixtures/nodes/channel-cap-slow-allreduce", "fixtures/traces/gpu/", "fixtures/snapshots/healthy_no_oom",
            "fixtures/snapshots/no_history", "fixtures/snapshots/oom_")

_VERDICT = "a measurement against a stated expectation; no public output with its expectation found yet"
_CLUSTER = "cluster facts of `doctor cluster` across live nodes; no recording of a skewed cluster yet"
WITHOUT_REAL_TEXT: dict[str, str] = {
    "NCT002": _VERDICT, "RDMA001": _VERDICT, "RDMA003": _VERDICT,
    "NSYS002": _VERDICT + " (nsys needs a GPU)",
    "ENV004": _VERDICT + " with the NCCL settings it ran under",
    "TOPO002": _VERDICT + " on a PCIe-only topology",
    "CLU005": _CLUSTER, "CLU012": _CLUSTER, "CLU013": _CLUSTER,
    "GPU012": "nvidia-smi -q with 'Remapping Failure Occurred : Yes': every copy found is synthetic",
    "GPU014": "a live probe's failure on a machine whose driver is gone: needs a GPU machine",
    "FR004": "torch 2.13 does not record gloo send/recv in its Flight Recorder: needs NCCL on GPUs",
    "MEM011": "an OOM beside a foreign process's memory: the H200 recording shows the process as this job's",
    "MEM021": "the H200 activations OOM ran outside an nn.Module, so no frame names a forward (snapshots README)",
    "MEM023": "a checkpoint restored onto the GPU: not recorded on the lent H200",
    "PERF007": "NVLink bandwidth across ranks' GPU traces: needs several GPUs",
    "PERF009": "NVLink bandwidth in one GPU trace: not recorded",
}


def fires_on_real_text(rule) -> bool:
    return any(t.expect == "fires" and t.input and not t.input.startswith(NOT_REAL) for t in rule.tests)


def test_every_rule_fires_on_real_text_or_is_listed_with_its_reason() -> None:
    missing = sorted(r.id for r in RULES if not fires_on_real_text(r) and r.id not in WITHOUT_REAL_TEXT)
    assert not missing, f"rules whose fires tests read no real text: {missing}"


def test_a_real_texts_source_note_lies_beside_its_folder_not_in_it() -> None:
    """fixtures/logs/<name>.SOURCE.md, not <name>/SOURCE.md: a note inside the folder is read as input too, and its
    quoted lines could make the rule fire (they did: a quoted NCCL_CROSS_NIC line gave the variable a second value)."""
    from pathlib import Path
    inside = sorted(str(p) for r in RULES for t in r.tests if t.input and Path(t.input).is_dir()
                    for p in Path(t.input).rglob("SOURCE.md"))
    assert not inside, inside


def test_a_listed_rule_has_no_real_firing_test_yet() -> None:
    done = sorted(r.id for r in RULES if r.id in WITHOUT_REAL_TEXT and fires_on_real_text(r))
    assert not done, f"these fire on real text now: take them off the list: {done}"
    assert set(WITHOUT_REAL_TEXT) <= {r.id for r in RULES}
