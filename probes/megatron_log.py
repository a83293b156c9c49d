"""Megatron-LM / Megatron-DeepSpeed iteration lines: the step time through a run, and a rise of it that stays.

Megatron prints one line per logging interval with "elapsed time per iteration (ms|s)" and "global batch size". A
step time that climbs mid-run and stays up while the batch size is unchanged is what a slow node or GPU does to a
synchronous job (the batch-size ramp-up also lengthens steps, hence the same-batch condition). Lines wrapped by a
pager or a document keep their batch size on the next line: it is taken from there.

Sample input (BigScience tr11-176B, as its chronicle wraps the lines; tr1-13B unwrapped):
    [default7]: iteration   42780/ 115311 | consumed samples:    71455664 | ... | elapsed time per iteration (s): 105.16 | learning
     rate: 4.475E-05 | global batch size: 2048 | lm loss: 2.117073E+00 | grad norm: 0.150 | ...
    iteration    43680/  311541 | consumed samples:     25709904 | elapsed time per iteration (ms): 25593.4 | learning rate: 9.135E-05 | global batch size:  1024 | ...
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from doctor.facts.train import TrainSlowdown
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import who
from doctor.probing.regex import lazy_compile

_ITERATION = lazy_compile(r"\biteration\s+(?P<i>\d{1,9})\s*/\s*\d{1,9}\s*\|")
_ELAPSED = lazy_compile(r"elapsed time per iteration \((?P<u>ms|s)\):\s*(?P<v>\d{1,9}(?:\.\d+)?)")
_BATCH = lazy_compile(r"global batch size:\s*(?P<b>\d{1,9})")
MIN_LINES = 4          # two before, two after at the least
RISE = 1.04            # a steady run's step time varies by about 1%; BLOOM's slow GPU cost 5%
_WRAP_LINES = 2        # how far below its iteration line a wrapped batch size may sit


@dataclass
class _Step:
    iteration: int
    seconds: float
    batch: int
    line_no: int
    line: str


class MegatronLog(LineProbe):
    name = "megatron_log"
    yields = ("train.slowdown",)
    triggers = ("elapsed time per iteration", "global batch size")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.series: dict[tuple[str, int], list[_Step]] = {}
        self.last: _Step | None = None

    def feed(self, line_no: int, line: str) -> None:
        batch = _BATCH.search(line)
        it, elapsed = _ITERATION.search(line), _ELAPSED.search(line)
        if it is None or elapsed is None:
            if batch and self.last is not None and self.last.batch < 0 and line_no - self.last.line_no <= _WRAP_LINES:
                self.last.batch = int(batch["b"])
            return
        seconds = float(elapsed["v"]) / (1000 if elapsed["u"] == "ms" else 1)
        writer = who(line, self.ctx.node)
        step = _Step(int(it["i"]), seconds, int(batch["b"]) if batch else -1, line_no, line)
        self.series.setdefault((writer.node, writer.rank), []).append(step)
        self.last = step

    def finish(self) -> None:
        for (node, rank), steps in self.series.items():
            self._slowdown(node, rank, sorted(steps, key=lambda s: s.iteration))

    def _slowdown(self, node: str, rank: int, steps: list[_Step]) -> None:
        if not steps or steps[-1].batch < 0:
            return
        batch = steps[-1].batch
        same: list[_Step] = []
        for s in reversed(steps):           # the latest stretch at the final batch size
            if s.batch != batch:
                break
            same.append(s)
        same.reverse()
        if len(same) < MIN_LINES:
            return
        k = max(2, len(same) // 3)
        before, after = same[:k], same[-k:]
        before_s, after_s = median(s.seconds for s in before), median(s.seconds for s in after)
        if before_s <= 0 or after_s / before_s < RISE or min(s.seconds for s in after) <= max(s.seconds for s in before):
            return
        first = after[0]
        self.ctx.emit(TrainSlowdown, first.line_no, first.line, node=node, rank=rank, steps=len(same),
                      iteration=first.iteration, batch=batch, before_s=round(before_s, 3), after_s=round(after_s, 3),
                      ratio=round(after_s / before_s, 3))
