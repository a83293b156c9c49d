"""A real DataLoader + model loop printing the pytorch/examples imagenet progress line (Time / Data meters)."""
import sys, time, torch
from torch.utils.data import DataLoader, Dataset

class Slow(Dataset):
    def __init__(self, delay): self.delay = delay
    def __len__(self): return 64
    def __getitem__(self, i):
        time.sleep(self.delay)
        return torch.randn(3, 32, 32), i % 10

class Meter:
    def __init__(self): self.val = self.sum = self.n = 0
    def update(self, v): self.val = v; self.sum += v; self.n += 1
    @property
    def avg(self): return self.sum / self.n

delay, workers = float(sys.argv[1]), int(sys.argv[2])
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3072, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Slow(delay), batch_size=4, num_workers=workers)
bt, dt, lm = Meter(), Meter(), Meter()
print(f"=> creating model 'mlp'")
end = time.time()
for i, (x, y) in enumerate(loader):
    dt.update(time.time() - end)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    for _ in range(20): model(x)          # some compute per step
    lm.update(loss.item()); bt.update(time.time() - end); end = time.time()
    if i % 3 == 0:
        print(f"Epoch: [0][{i}/{len(loader)}]\tTime {bt.val:.3f} ({bt.avg:.3f})\tData {dt.val:.3f} ({dt.avg:.3f})\tLoss {lm.val:.4f} ({lm.avg:.4f})")
