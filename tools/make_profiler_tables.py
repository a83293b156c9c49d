"""Record real torch.profiler summary tables (`prof.key_averages().table(...)`), the text users paste when they ask why
training is slow: one loop whose DataLoader sleeps in __getitem__ (data-bound) and one whose data is already in memory
(compute-bound).

    PYTHONPATH=$PWD .venv/bin/python tools/make_profiler_tables.py [--out fixtures/probes/profiler_table]

Each run trains a small conv net on CPU for a few steps under torch.profiler and writes the table sorted by CPU total
time, as the tutorials print it. Timings depend on the machine; the committed fixtures are one recording.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils.data import DataLoader, Dataset

STEPS = 8


class Images(Dataset):
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        if self.delay_s:
            time.sleep(self.delay_s)          # a slow decode / remote read
        return torch.randn(3, 32, 32), i % 10


def table(delay_s: float) -> str:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3), torch.nn.ReLU(), torch.nn.Conv2d(32, 32, 3), torch.nn.ReLU(),
                                torch.nn.Flatten(), torch.nn.Linear(32 * 28 * 28, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Images(delay_s), batch_size=4)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for step, (x, y) in enumerate(loader):
            if step == STEPS:
                break
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return prof.key_averages().table(sort_by="cpu_time_total", row_limit=12)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="fixtures/probes/profiler_table")
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    (out / "cpu-dataloader-bound.txt").write_text(table(0.05) + "\n", encoding="utf-8")
    (out / "cpu-compute-bound.txt").write_text(table(0.0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
