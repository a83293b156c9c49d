"""Training logs with per-step timings: mmcv/mmengine, detectron2, timm, nanoGPT-style and plain prints.

Sample input:
    Epoch [1][50/1000]	lr: 1.000e-02, eta: 1:23:45, time: 0.532, data_time: 0.412, memory: 3000, loss: 1.2
    [rank1] step 4: loss=0.75 step_time=1.602s compute=1.600s comm=0.001s
    Train: 0 [ 100/1251 (  8%)]  Loss: 6.9 (6.9)  Time: 0.412s,  621.12/s  LR: 1.0e-03  Data: 0.012 (0.015)
    Epoch: [0][10/5005]	Time 22.424 (7.498)	Data 22.372 (7.070)	Loss 6.9065 (6.9074)
    ctdet/coco_dla |###   | train: [54][4784/14785]|Tot: 1:20:53 |ETA: 6:14:23 |loss 1.74 |Data 3.556s(0.517s) |Net 1.014s
   | > Step:12/640  GlobalStep:9012  TotalLoss:0.51  StepTime:1.62  LoaderTime:0.04  (Mozilla/Coqui TTS)
    INFO 2025-07-11 08:20:13 ts/train.py:232 step:9 smpl:576 ep:2 epch:0.00 loss:1.051 updt_s:0.302 data_s:13.330  (LeRobot)
"""
from __future__ import annotations

import re
from collections import defaultdict
from statistics import median

from doctor.facts.train import TrainSteps
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import who
from doctor.probing.regex import lazy_compile

# One pass over the line for every timing: a name, then its value (the first of each kind counts).
_NAMES: dict[str, str] = {
    # "Net" is the progress-bar format's (CenterNet, FairMOT) average batch time, data wait included
    **dict.fromkeys(("step_time", "iter_time", "batch_time", "time", "Time", "StepTime", "Net"), "step"),
    **dict.fromkeys(("data_time", "data_wait", "dataloader_time", "Data", "LoaderTime", "data_s"), "data"),
    **dict.fromkeys(("compute", "compute_time", "fwd_bwd", "updt_s"), "compute"),   # LeRobot: the update, data wait apart
    **dict.fromkeys(("comm", "comm_time", "allreduce_time", "sync_time"), "comm"),
}
# a figure, in scientific notation too: MLPerf GNMT's "Data 7.41e-05 (2.51e-02)" is 74 microseconds, not 7 s
_NUMBER = r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_TIMING = lazy_compile(r"(?<![\w])(?P<name>" + "|".join(sorted(_NAMES, key=len, reverse=True)) +
                     r")\s*[:=]?\s*(?P<v>" + _NUMBER + r")\s*(?P<u>ms|s)?\b"
                     r"(?:\s*\((?P<avg>" + _NUMBER + r")\s*(?P<au>ms|s)?\))?")   # "Data 3.556s(0.517s)": current (running average)
_ITERATION = lazy_compile(r"\[(?P<i>\d+)/\d+\]")
_STEP_INDEX = lazy_compile(r"\b[Ss]tep\s*[:=]?\s*(?P<i>\d+)\b")     # "step:9", "step 4:", "Step:12/640"
_WARMUP_STEPS = 1   # a job's first step pays for start-up (workers forking, caches filling): not its pace


def _seconds(m: re.Match[str]) -> float:
    value = float(m["v"])
    return value / 1000 if m["u"] == "ms" else value


def _average(m: re.Match[str]) -> float:
    """The running average printed next to the value (AverageMeter logs), else the value itself."""
    if m["avg"] is None:
        return _seconds(m)
    return float(m["avg"]) / 1000 if m["au"] == "ms" else float(m["avg"])


class TrainLog(LineProbe):
    name = "train_log"
    yields = ("train.steps",)
    sampled = True      # step lines fill big logs; medians come from evenly spaced samples of them
    triggers = ("data_time", "step_time", "iter_time", "batch_time", "time: ", "time=", " time ", "Time: ", "Data: ", "comm",
                "\tTime ", "\tData ", "LoaderTime:", "|Data ", "data_s:")   # pytorch/examples imagenet: Time 0.412 (0.430)<TAB>Data 0.012 (0.015)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.samples: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.first: dict[tuple[str, int], tuple[int, str]] = {}
        self.first_index: dict[tuple[str, int], int] = {}   # the step number the first timed line prints, if any
        # the latest line with running averages and an iteration index: (line_no, line, averages, iteration)
        self.averaged: dict[tuple[str, int], tuple[int, str, dict[str, float], int]] = {}

    def feed(self, line_no: int, line: str) -> None:
        writer = who(line, self.ctx.node)
        values: dict[str, float] = {}
        averages: dict[str, float] = {}
        has_average = False
        for m in _TIMING.finditer(writer.body):
            values.setdefault(_NAMES[m["name"]], _seconds(m))
            averages.setdefault(_NAMES[m["name"]], _average(m))
            has_average = has_average or m["avg"] is not None
        if "step" not in values and "data" not in values:
            return   # a step's length, or at least its wait for data (a log that prints only the loader's time)
        if "step" in values and len(values) == 1:
            return
        key = (writer.node, writer.rank)
        iteration = [int(i["i"]) for i in _ITERATION.finditer(writer.body)]
        if key not in self.first:
            self.first[key] = (line_no, line)
            step_no = _STEP_INDEX.search(writer.body)
            if iteration or step_no:
                self.first_index[key] = iteration[0] if iteration else int(step_no["i"])
        if has_average and iteration:
            self.averaged[key] = (line_no, line, averages, iteration[-1])
        for name, value in values.items():
            self.samples[key][name].append(value)

    def finish(self) -> None:
        for key, series in self.samples.items():
            counted = series.get("step") or series.get("data") or []
            if len(counted) < 2:
                self._emit_averaged(key)
                continue
            warmup = _WARMUP_STEPS if self.first_index.get(key, 0) <= 1 else 0   # an excerpt past the first step has no start-up
            med = {name: median(vals[warmup:] or vals) for name, vals in series.items() if vals}
            step = med.get("step", -1.0)
            waits = series.get("data", [])[warmup:] or series.get("data", [])
            line_no, line = self.first[key]
            self.ctx.emit(TrainSteps, line_no, line, node=key[0], rank=key[1], steps=len(counted),
                          step_s=step, data_s=med.get("data", -1.0), compute_s=med.get("compute", -1.0),
                          comm_s=med.get("comm", -1.0), data_max_s=max(waits) if waits else -1.0,
                          data_share=med["data"] / step if "data" in med and step > 0 else -1.0,
                          comm_share=med["comm"] / step if "comm" in med and step > 0 else -1.0)

    def _emit_averaged(self, key: tuple[str, int]) -> None:
        """One line of running averages at iteration i stands for the i steps it averages."""
        if key not in self.averaged:
            return
        line_no, line, avg, iteration = self.averaged[key]
        step = avg.get("step", -1.0)
        if iteration < 3 or step <= 0:
            return
        self.ctx.emit(TrainSteps, line_no, line, node=key[0], rank=key[1], steps=iteration, step_s=step,
                      data_s=avg.get("data", -1.0), compute_s=avg.get("compute", -1.0), comm_s=avg.get("comm", -1.0),
                      data_share=avg["data"] / step if "data" in avg else -1.0,
                      comm_share=avg["comm"] / step if "comm" in avg else -1.0)
