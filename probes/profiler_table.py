"""torch.profiler's printed summary table (`prof.key_averages().table(sort_by=...)`): the input pipeline's share.

Sample input (the columns vary with the activities profiled; the header names them):
    -------------------------------------------------------  ------------  ------------  ------------  ...
                                                       Name    Self CPU %      Self CPU   CPU total %  ...
    -------------------------------------------------------  ------------  ------------  ------------  ...
    enumerate(DataLoader)#_SingleProcessDataLoaderIter._...        88.64%       78.632s        89.18%  ...

`enumerate(DataLoader)#..._DataLoaderIter.__next__` is the time the training loop spent getting its next batch:
loading in the main process, or waiting for the workers. Its "CPU total %" is its share of the profiled CPU time.
"""
from __future__ import annotations

import re

from doctor.facts.perf import ProfilerTableRow
from doctor.probing.contract import LineProbe, ParseContext

_COLUMNS = re.compile(r"\s{2,}")
_DATALOADER = "enumerate(DataLoader)"


def _cells(line: str) -> list[str]:
    return _COLUMNS.split(line.strip())


def _percent(cell: str) -> float:
    try:
        return round(float(cell.rstrip("%")) / 100, 4) if cell.endswith("%") else -1.0
    except ValueError:
        return -1.0


class ProfilerTable(LineProbe):
    name = "profiler_table"
    yields = ("profile.dataloader",)
    triggers = ("CPU total %", _DATALOADER)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.header: list[str] = []      # the column names of the table being read

    def feed(self, line_no: int, line: str) -> None:
        cells = _cells(line)
        if "CPU total %" in cells and cells[0] == "Name":
            self.header = cells
            return
        if not self.header or not cells[0].startswith(_DATALOADER) or len(cells) != len(self.header):
            return
        row = dict(zip(self.header, cells))
        calls = row.get("# of Calls", "")
        self.ctx.emit(ProfilerTableRow, line_no, line, name=cells[0], cpu_total_frac=_percent(row["CPU total %"]),
                      calls=int(calls) if calls.isdigit() else -1)
