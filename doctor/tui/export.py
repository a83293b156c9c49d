"""Export the current report next to the person: doctor-report.json and doctor-report.md in the working directory."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from doctor.report.model import Report

EXPORT_JSON, EXPORT_MD = "doctor-report.json", "doctor-report.md"


def export(report: Report, folder: Path) -> list[Path]:
    """Write doctor-report.json and doctor-report.md into folder."""
    from doctor.report.markdown import render
    json_path, md_path = folder / EXPORT_JSON, folder / EXPORT_MD
    json_path.write_text(json.dumps(report.to_json(), indent=1) + "\n")
    md_path.write_text(render(report))
    return [json_path, md_path]
