# A small classifier trained from a DataLoader, with train()/eval() and accuracy, in the
# style of PyTorch's tutorials. float32 (torch's default). Weights come from numpy so both
# sides start the same.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

# torch's default already; micrograd's default is float64 until its float32 default lands
torch.set_default_dtype(torch.float32)

rng = np.random.default_rng(42)
n = 240
angles = rng.uniform(0, 2 * np.pi, n)
radius = np.where(np.arange(n) % 2 == 0, 1.0, 2.0) + rng.normal(0, 0.15, n)
features = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
labels = (np.arange(n) % 2).astype(np.int64)

X = torch.tensor(features, dtype=torch.float32)
y = torch.tensor(labels)
train = DataLoader(TensorDataset(X[:200], y[:200]), batch_size=20, shuffle=False)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.ReLU(),
                                  nn.Linear(16, 16), nn.Tanh())
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.body(x))


model = Classifier()
start = {}
for name, value in model.state_dict().items():
    if name.endswith("weight") or name.endswith("bias"):
        start[name] = torch.tensor(rng.normal(0, 0.5, size=tuple(value.shape)), dtype=torch.float32)
result = model.load_state_dict(start, strict=False)
print("not loaded:", sorted(result.missing_keys))
print("state keys:", list(model.state_dict().keys()))

# SGD, not Adam: Adam steps by about lr * sign(g), so a gradient near 0 that float32
# rounds to the other sign moves a weight by a whole step on one side only
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
for epoch in range(6):
    model.train()
    total = 0.0
    for xb, yb in train:
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)
    model.eval()
    with torch.no_grad():
        logits = model(X[200:])
        accuracy = (logits.argmax(dim=1) == y[200:]).float().mean().item()
        val_loss = F.cross_entropy(logits, y[200:]).item()
    print(f"epoch {epoch}: train loss {total / 200:.5f}  val loss {val_loss:.5f}  "
          f"accuracy {accuracy:.3f}")
print("training mode:", model.training, model.body[1].training)
print("batches tracked:", model.body[1].num_batches_tracked.item())
print("running mean:", [round(v, 5) for v in model.body[1].running_mean.tolist()[:4]])
