"""What `doctor check` writes: text for people, JSON, JUnit XML (one testcase per check) and Prometheus
textfile-collector metrics. Files are written atomically (a temporary file, then rename), as the
textfile collector requires."""
from __future__ import annotations

import json
import os
import socket
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from doctor.check.evaluate import FAIL, PASS, UNCHECKED, Evaluation
from doctor.report.model import _diagnosis

SCHEMA = "doctor.check/1"
STATUS_CODE = {PASS: 0, FAIL: 1, UNCHECKED: 2}


def to_json(ev: Evaluation, policy_path: str, seconds: float, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "schema": SCHEMA, "policy": policy_path, "exit": ev.exit_code, "seconds": round(seconds, 3),
        "counts": {s: ev.count(s) for s in (PASS, FAIL, UNCHECKED)},
        "checks": [{"id": r.check.id, "requirement": r.check.text, "status": r.status, "message": r.message,
                    "nodes": r.nodes, "evidence": r.evidence, "policy_line": r.check.line} for r in ev.results],
        "diagnoses": [_diagnosis(d) for d in ev.report.diagnoses],
        **(extra or {}),
    }


def render_text(ev: Evaluation, policy_path: str) -> str:
    lines = [f"doctor check against {policy_path}: {ev.count(PASS)} passed, {ev.count(FAIL)} failed, "
             f"{ev.count(UNCHECKED)} could not be checked"]
    mark = {PASS: "PASS", FAIL: "FAIL", UNCHECKED: "SKIP"}
    for r in ev.results:
        lines.append(f"  {mark[r.status]}  {r.check.id:<28} {r.message}")
        lines += [f"        {e}" for e in r.evidence[:4]]
    others = [d for d in ev.report.diagnoses if not any(rule.startswith("POL") for rule in d.rules)]
    if others:
        lines.append("Also found (not part of the policy):")
        lines += [f"  {d.cause} ({d.confidence:.2f}): {d.title}" for d in others[:5]]
    return "\n".join(lines) + "\n"


def junit(ev: Evaluation, policy_path: str, seconds: float) -> bytes:
    suite = ET.Element("testsuite", {
        "name": "doctor check", "tests": str(len(ev.results)), "failures": str(ev.count(FAIL)), "errors": "0",
        "skipped": str(ev.count(UNCHECKED)), "time": f"{seconds:.3f}", "hostname": socket.gethostname(),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S")})
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", {"name": "policy", "value": policy_path})
    for r in ev.results:
        case = ET.SubElement(suite, "testcase", {"classname": "doctor.check", "name": r.check.id, "time": "0"})
        if r.status == FAIL:
            failure = ET.SubElement(case, "failure", {"message": r.message, "type": "policy"})
            failure.text = "\n".join([f"requirement: {r.check.text} ({policy_path}:{r.check.line})", *r.evidence])
        elif r.status == UNCHECKED:
            ET.SubElement(case, "skipped", {"message": f"could not check: {r.message}"})
    root = ET.Element("testsuites", {"name": "doctor", "tests": suite.get("tests", "0"),
                                     "failures": suite.get("failures", "0"), "skipped": suite.get("skipped", "0")})
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def prometheus(ev: Evaluation, seconds: float) -> str:
    """Text exposition format 0.0.4, for node_exporter's textfile collector."""
    out = ["# HELP doctor_check_status Result of one doctor check: 0 pass, 1 fail, 2 could not check.",
           "# TYPE doctor_check_status gauge"]
    out += [f'doctor_check_status{{check="{_label(r.check.id)}"}} {STATUS_CODE[r.status]}' for r in ev.results]
    out += ["# HELP doctor_check_checks Checks per result.", "# TYPE doctor_check_checks gauge"]
    out += [f'doctor_check_checks{{result="{s}"}} {ev.count(s)}' for s in (PASS, FAIL, UNCHECKED)]
    out += ["# HELP doctor_check_exit_code Exit code of the last doctor check (0 pass, 1 fail, 3 could not check).",
            "# TYPE doctor_check_exit_code gauge", f"doctor_check_exit_code {ev.exit_code}",
            "# HELP doctor_check_duration_seconds How long the last doctor check took.",
            "# TYPE doctor_check_duration_seconds gauge", f"doctor_check_duration_seconds {seconds:.3f}",
            "# HELP doctor_check_last_run_timestamp_seconds When the last doctor check ended (Unix time).",
            "# TYPE doctor_check_last_run_timestamp_seconds gauge",
            f"doctor_check_last_run_timestamp_seconds {time.time():.0f}"]
    return "\n".join(out) + "\n"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def write_atomic(path: str, data: bytes | str) -> None:
    target = Path(path)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=str(target.parent or "."))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1) + "\n"
