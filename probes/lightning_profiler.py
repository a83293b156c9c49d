"""PyTorch Lightning's SimpleProfiler report (`Trainer(profiler="simple")`, printed at the end of fit): the share of
the profiled time the training loop spent fetching its next batch.

Sample input (cells separated by '|' and tabs; some pastes drop the outer pipes):
    |  Action                                             	|  Mean duration (s)	|  Num calls      	|  Total time (s) 	|  Percentage %   	|
    |  Total                                              	|  -              	|  229            	|  2.8324         	|  100 %          	|
    |  [_TrainingEpochLoop].train_dataloader_next         	|  0.20696        	|  12             	|  2.4835         	|  87.682         	|

`[_TrainingEpochLoop].train_dataloader_next` (`[TrainingEpochLoop]...` in 1.x, `get_train_batch` before 1.5) is the
time spent in next() on the train DataLoader: loading in the main process, or waiting for workers. Its "Percentage %"
is its share of the time the profiler covered (the Total row); without that column it is Total time / the Total
row's total time.
"""
from __future__ import annotations

import re

from doctor.facts.perf import ProfilerTableRow
from doctor.probing.contract import LineProbe, ParseContext

_FETCH = re.compile(r"(?:^|\]\.)train_dataloader_next$|^get_train_batch$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|") if c.strip()]


def _number(cell: str) -> float:
    try:
        return float(cell.rstrip("%").strip())
    except ValueError:
        return -1.0


class LightningProfiler(LineProbe):
    name = "lightning_profiler"
    yields = ("profile.dataloader",)
    triggers = ("Action", "Total", "train_dataloader_next", "get_train_batch")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.header: list[str] = []      # the report's column names
        self.total_s = -1.0              # the Total row's "Total time (s)"

    def feed(self, line_no: int, line: str) -> None:
        cells = _cells(line)
        if not cells:
            return
        if cells[0] == "Action" and "Total time (s)" in cells:
            self.header, self.total_s = cells, -1.0
            return
        if not self.header or len(cells) != len(self.header):
            return
        row = dict(zip(self.header, cells))
        if cells[0] == "Total":
            self.total_s = _number(row["Total time (s)"])
        elif _FETCH.search(cells[0]):
            self._fetch_row(line_no, line, row)

    def _fetch_row(self, line_no: int, line: str, row: dict[str, str]) -> None:
        if "Percentage %" in row:
            share = _number(row["Percentage %"]) / 100
        elif self.total_s > 0:
            share = _number(row["Total time (s)"]) / self.total_s
        else:
            return
        calls = row.get("Num calls", "")
        self.ctx.emit(ProfilerTableRow, line_no, line, name=row["Action"], cpu_total_frac=round(share, 4),
                      calls=int(calls) if calls.isdigit() else -1, table="lightning")
