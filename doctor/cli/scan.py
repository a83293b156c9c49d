"""`doctor scan [--symptom S] [--json]`: probe this node live, then diagnose with the same engine as analyze.

The outputs are written as a bundle into a temporary folder and read back through the offline path, so
`doctor collect` + `doctor analyze bundle.tar.gz` elsewhere gives the same report as a scan here.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from doctor.cli.analyze import SYMPTOMS
from doctor.cli.exit_codes import ExitCode
from doctor.cli.node_options import add_probe_options, gather, list_probes
from doctor.probing.live import LiveResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--symptom", choices=SYMPTOMS, help="what you saw; causes that explain it rank higher")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (doctor.report/1, plus 'scan')")
    parser.add_argument("--engine", choices=("native", "durable"), default="native", help="rule engine backend")
    add_probe_options(parser)


def run(args: argparse.Namespace) -> int:
    if args.list:
        return list_probes()
    from doctor.diagnose import diagnose_files
    from doctor.probing.bundle import write_dir
    from doctor.probing.node import node_name
    from probes.environment import redact_text
    started = time.monotonic()
    results = gather(args)
    node = node_name()
    with tempfile.TemporaryDirectory(prefix="doctor-scan-") as tmp:
        write_dir(results, Path(tmp), node, live=True, redact=redact_text)
        report = diagnose_files([tmp], args.symptom, args.engine)
    summary = scan_summary(results, node, time.monotonic() - started, report.facts)
    if args.json:
        data = report.to_json()
        data["scan"] = summary
        json.dump(data, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        from doctor.report.text import render
        console = Console(highlight=False)
        console.print(render_summary(summary))
        console.print(render(report))
    return ExitCode.FINDINGS if report.diagnoses else ExitCode.OK


def scan_summary(results: list[LiveResult], node: str, seconds: float, facts: list[Any]) -> dict[str, Any]:
    gpus = sorted({f.index for f in facts if f.KIND == "gpu.device" and f.index >= 0})
    gpu_probes = [r for r in results if r.probe.gpu]
    note = ""
    if gpu_probes and not gpus:
        reasons: dict[str, list[str]] = {}
        for r in gpu_probes:
            reasons.setdefault(r.reason or r.status, []).append(r.probe.name)
        why = "; ".join(f"{reason} ({', '.join(names)})" for reason, names in reasons.items())
        note = f"no NVIDIA GPU seen on this node: {why}"
    return {"node": node, "seconds": round(seconds, 2), "gpus": len(gpus), "gpu_note": note,
            "counts": {s: sum(r.status == s for r in results) for s in ("ok", "skipped", "failed")},
            "probes": [{"name": r.probe.name, "command": r.probe.label, "status": r.status, "reason": r.reason,
                        "exit": r.exit, "duration_s": r.duration_s} for r in results]}


def render_summary(summary: dict[str, Any]):  # type: ignore[no-untyped-def]
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text
    counts = summary["counts"]
    parts: list[Any] = [Text(f"Scanned {summary['node']} in {summary['seconds']:.1f}s: {counts['ok']} probes ok, "
                             f"{counts['skipped']} skipped, {counts['failed']} failed.", style="bold")]
    if summary["gpu_note"]:
        parts.append(Text(summary["gpu_note"][:1].upper() + summary["gpu_note"][1:] + ".", style="yellow"))
    table = Table.grid(padding=(0, 2))
    for p in summary["probes"]:
        if p["status"] != "ok":
            # Text, not a markup string: "pip install 'doctor[nvml]'" must keep its [nvml]
            table.add_row(Text(p["status"], style="red" if p["status"] == "failed" else "yellow"), Text(p["name"]),
                          Text(p["reason"] or ""))
    if table.row_count:
        parts.append(table)
    return Group(*parts)
