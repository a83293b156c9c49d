"""The messages widgets and screens post upwards (attributes down, messages up)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from doctor.rank import Diagnosis
    from doctor.tui.checks import NextItem


class SymptomChosen(Message):
    """The person said what they see (symptom None: not sure)."""

    def __init__(self, symptom: str | None, label: str) -> None:
        super().__init__()
        self.symptom = symptom
        self.label = label


class CauseHighlighted(Message):
    """The cursor moved to a cause in the ranked list."""

    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.diagnosis = diagnosis


class CauseOpened(Message):
    """Enter (or a click) on a cause: show its evidence."""

    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.diagnosis = diagnosis


class CheckRequested(Message):
    """Run the live check that answers a next-check item of a cause."""

    def __init__(self, item: NextItem, cause: str) -> None:
        super().__init__()
        self.item = item
        self.cause = cause
