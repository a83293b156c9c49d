"""probes/mesh_proxy.py on real sidecar output: Istio's Envoy refusing a connection by its RBAC filter."""
from __future__ import annotations

from pathlib import Path

from doctor.aggregate import aggregate
from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def facts_of(path: Path, kind: str) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    return [f for f in facts if f.KIND == kind]


def test_envoy_rbac_denial_names_the_matched_policy() -> None:
    (d,) = facts_of(CASES / "port-blocked-kubeflow-trainer-1634-istio-rbac" / "input", "net.proxy_denied")
    assert d.proxy == "envoy" and d.policy == "none"
    assert d.origin.line == 1


def test_client_side_wording_without_a_policy(tmp_path: Path) -> None:
    log = tmp_path / "curl.txt"
    log.write_text("$ curl http://localhost:8080/\nRBAC: access denied\n")
    (d,) = facts_of(log, "net.proxy_denied")
    assert d.policy == "" and d.origin.line == 2


def test_a_healthy_pod_log_has_no_denial() -> None:
    assert facts_of(CASES / "healthy-gke-a3high-tcpx-allgather" / "input", "net.proxy_denied") == []
