"""The report: the one result every front end (CLI text, JSON, TUI, JUnit) renders."""
from doctor.report.model import SCHEMA, Report

__all__ = ["SCHEMA", "Report"]
