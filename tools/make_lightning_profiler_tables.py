"""Record real PyTorch Lightning SimpleProfiler reports (`Trainer(profiler="simple")`), the table users paste when
they ask why a Lightning run is slow: one run whose Dataset sleeps in __getitem__ (data-bound) and one whose data is
already in memory (compute-bound).

    PYTHONPATH=$PWD:<dir with pytorch_lightning> .venv/bin/python tools/make_lightning_profiler_tables.py \
        [OUT, default fixtures/probes/lightning_profiler]

pytorch_lightning is not a dependency of doctor (it only reads the report's text); install it anywhere for this
script, e.g. `pip install --target /tmp/pl --no-deps pytorch-lightning lightning-utilities torchmetrics tqdm numpy`.
Each run trains a small conv net on CPU for a few steps and writes the report Lightning prints at the end of fit.
Timings depend on the machine; the committed fixtures are one recording (pytorch_lightning 2.6.6, torch 2.13 CPU).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytorch_lightning as pl
import torch
from pytorch_lightning.profilers import SimpleProfiler
from torch.utils.data import DataLoader, Dataset

STEPS = 12


class Images(Dataset):
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def __len__(self) -> int:
        return 4 * STEPS

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        if self.delay_s:
            time.sleep(self.delay_s)          # a slow decode / remote read
        return torch.randn(3, 32, 32), i % 10


class Net(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3), torch.nn.ReLU(), torch.nn.Conv2d(32, 32, 3),
                                       torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(32 * 28 * 28, 10))

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], _: int) -> torch.Tensor:
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.01)


def report(delay_s: float, out: Path, name: str) -> None:
    """Fit once under SimpleProfiler; Lightning writes fit-<name>.txt, kept as <name>.txt."""
    torch.manual_seed(0)
    profiler = SimpleProfiler(dirpath=str(out), filename=name)
    trainer = pl.Trainer(accelerator="cpu", devices=1, max_epochs=1, profiler=profiler, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Net(), DataLoader(Images(delay_s), batch_size=4))
    (out / f"fit-{name}.txt").replace(out / f"{name}.txt")


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "fixtures/probes/lightning_profiler")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    for delay_s, name in ((0.05, "simple-dataloader-bound"), (0.0, "simple-compute-bound")):
        report(delay_s, out, name)


if __name__ == "__main__":
    main()
