"""A confidence score as a bar with eighth-block resolution, coloured by how sure doctor is."""
from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

_EIGHTHS = " ▏▎▍▌▋▊▉█"


def score_style(confidence: float) -> str:
    return "$error" if confidence >= 0.7 else "$warning" if confidence >= 0.4 else "$primary"


def score_bar(confidence: float, width: int = 10) -> Content:
    """`width` cells: full blocks, one partial block, then an empty track."""
    eighths = max(0, min(width * 8, round(confidence * width * 8)))
    full, part = divmod(eighths, 8)
    bar = "█" * full + (_EIGHTHS[part] if part else "")
    style = score_style(confidence)
    return Content.assemble((bar, f"{style} on $panel"), (" " * (width - len(bar)), "on $panel"))


class ScoreBar(Widget):
    """A score bar followed by the number."""

    DEFAULT_CSS = "ScoreBar { height: 1; width: auto; }"
    score: reactive[float] = reactive(0.0)

    def render(self) -> Content:
        return Content.assemble(score_bar(self.score, 20), f" {self.score:.2f}")
