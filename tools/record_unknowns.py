"""Record fixtures/unknowns/: real failures of real PyTorch programs, run here, whose error lines no rule explains.

Each scenario is a small program run as a subprocess (train.py in a scratch folder) with the project's Python (torch CPU); its stdout and stderr,
verbatim, become fixtures/unknowns/<name>.log. tests/test_unknowns.py checks that doctor never answers these with
"No known cause": it lists the unexplained lines, the symptom's differential and what to upload next.

    python tools/record_unknowns.py            # rewrites every fixtures/unknowns/*.log
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "unknowns"

GLOO_PAIR = """
import os, sys, torch, torch.distributed as dist, torch.multiprocessing as mp
def work(rank):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[1])
    dist.init_process_group("gloo", rank=rank, world_size=2)
    print(f"[rank{rank}] joined, world size {dist.get_world_size()}", flush=True)
    BODY
    dist.destroy_process_group()
if __name__ == "__main__":
    mp.spawn(work, nprocs=2)
"""

SCENARIOS: dict[str, str] = {
    "dataloader-worker-keyerror": """
import torch
from torch.utils.data import DataLoader, Dataset
class Rows(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i): return {"x": torch.ones(2)}["label"]
for batch in DataLoader(Rows(), batch_size=2, num_workers=1):
    pass
""",
    "linear-shape-mismatch": """
import torch
model = torch.nn.Sequential(torch.nn.Linear(20, 5))
print("step 0 starting", flush=True)
model(torch.randn(4, 10)).sum().backward()
""",
    "checkpoint-truncated": """
import os, tempfile, torch
path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
torch.save({"w": torch.ones(1000)}, path)
with open(path, "r+b") as f: f.truncate(200)
print(f"resuming from {os.path.basename(path)}", flush=True)
torch.load(path, weights_only=True)
""",
    "state-dict-missing-keys": """
import torch
model = torch.nn.Linear(4, 4)
model.load_state_dict({"weight": torch.ones(4, 4)})
""",
    "backward-twice": """
import torch
w = torch.ones(3, requires_grad=True)
loss = (w.exp() * 2).sum()
loss.backward()
loss.backward()
""",
    "inplace-modified-for-grad": """
import torch
a = torch.ones(3, requires_grad=True)
b = a.sigmoid()
b.mul_(2)
b.sum().backward()
""",
    "module-not-found-apex": """
print("building optimizer", flush=True)
from apex.optimizers import FusedAdam
""",
    "gloo-rank-raises-value-error": GLOO_PAIR.replace("BODY", """t = torch.ones(4)
    dist.all_reduce(t)
    if rank == 1:
        raise ValueError(f"loss is nan at step 3 on rank {rank}")
    dist.barrier()"""),
    "gloo-all-gather-wrong-list": GLOO_PAIR.replace("BODY", """out = [torch.zeros(2) for _ in range(3)]
    dist.all_gather(out, torch.ones(2))"""),
    "gloo-scatter-wrong-list": GLOO_PAIR.replace("BODY", """out = torch.zeros(2)
    dist.scatter(out, [torch.ones(2)] * 3 if rank == 0 else None, src=0)"""),
}


def record(name: str, program: str, port: int) -> None:
    """Run the program as train.py in a scratch folder (mp.spawn needs a real file), keep what it printed."""
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "train.py").write_text(program, encoding="utf-8")
        proc = subprocess.run([sys.executable, "train.py", str(port)], capture_output=True, text=True, timeout=60,
                              cwd=scratch, env={"PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"})
    (OUT / f"{name}.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    print(f"{name}: exit {proc.returncode}, {len((proc.stdout + proc.stderr).splitlines())} lines")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for i, (name, program) in enumerate(SCENARIOS.items()):
        record(name, program, 29610 + i)
