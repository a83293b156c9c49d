"""Per-rank time bars (compute / communication / idle ...) from step or trace facts, when a probe gave any."""
from __future__ import annotations

from collections import defaultdict

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from doctor.facts import Fact

RANK_KIND_PREFIXES = ("trace.", "step.")
# field-name fragments -> style, in the order they are stacked
PART_STYLES: tuple[tuple[str, str], ...] = (
    ("compute", "$primary"), ("comm", "$warning"), ("data", "$secondary"), ("idle", "$error"), ("wait", "$error"),
)


def rank_series(facts: list[Fact]) -> dict[int, dict[str, float]]:
    """rank -> {field: seconds}, summed over the rank's step/trace facts; numeric fields naming a known part."""
    out: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for f in facts:
        if f.rank < 0 or not f.KIND.startswith(RANK_KIND_PREFIXES):
            continue
        for name, value in f.as_dict().items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 and _style(name):
                out[f.rank][name] += float(value)
    return {rank: dict(series) for rank, series in sorted(out.items())}


def _style(name: str) -> str | None:
    return next((style for part, style in PART_STYLES if part in name), None)


def bars(series: dict[int, dict[str, float]], width: int) -> Content:
    top = max((sum(s.values()) for s in series.values()), default=0) or 1
    lines = []
    for rank, parts in series.items():
        cells: list[tuple[str, str] | str] = [(f"rank {rank:<4}", "bold")]
        for name, value in parts.items():
            cells.append(("█" * max(1, round(value / top * width)), _style(name) or ""))
        cells.append((f" {sum(parts.values()):.3g}", "$text-muted"))
        lines.append(Content.assemble(*cells))
    names = sorted({n for s in series.values() for n in s})
    key = Content.assemble(*((f"██ {n}   ", _style(n) or "") for n in names))
    return Content("\n").join([key, *lines])


class RankBars(Widget):
    DEFAULT_CSS = "RankBars { height: auto; }"
    series: reactive[dict[int, dict[str, float]]] = reactive(dict, layout=True)

    def __init__(self, facts: list[Fact], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(RankBars.series, rank_series(facts))

    def render(self) -> Content:
        if not self.series:
            return Content.styled("no trace facts in these inputs: open a torch.profiler trace or a training log "
                                  "with per-rank step times to see where each rank spends its step", "$text-muted")
        return bars(self.series, max(10, self.size.width - 20))
