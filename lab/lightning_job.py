"""A tiny Lightning training job for the lab: a linear model, a few DDP steps on CPU over gloo.

    NODE_RANK=R MASTER_ADDR=... MASTER_PORT=... python -m lab.lightning_job --num-nodes 2 [--timeout 8]

Lightning (kept off the shared venv: LAB_LIGHTNING_PATH, see lab/README.md) reads NODE_RANK, MASTER_ADDR and
MASTER_PORT itself, as on a cluster without a scheduler; its own log lines ("Initializing distributed: GLOBAL_RANK:
...", "distributed_backend=gloo") are what a user's job prints.
"""
from __future__ import annotations

import argparse
from datetime import timedelta


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-nodes", type=int, default=2)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=8.0, help="process-group timeout (s)")
    args = ap.parse_args()

    import lightning as L
    import torch
    from lightning.pytorch.strategies import DDPStrategy
    from torch.utils.data import DataLoader, TensorDataset

    class Regression(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(8, 1)

        def training_step(self, batch, _idx):
            x, y = batch
            return torch.nn.functional.mse_loss(self.layer(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    trainer = L.Trainer(accelerator="cpu", devices=1, num_nodes=args.num_nodes,
                        strategy=DDPStrategy(process_group_backend="gloo", timeout=timedelta(seconds=args.timeout)),
                        max_steps=args.steps, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    trainer.fit(Regression(), DataLoader(data, batch_size=8))
    print(f"[node {trainer.node_rank}] global rank {trainer.global_rank} done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
