"""makemore-style data handling: a Dataset of names, an infinite loader over a
RandomSampler with replacement, shuffled and sequential loaders with batch samplers,
collate_fn and drop_last, a small model trained on the batches, and an evaluation
under inference mode; plus the autograd rules such scripts run into."""

import random

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import Dataset
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.sampler import BatchSampler, SequentialSampler, SubsetRandomSampler

rng = random.Random(3)
syllables = ["ka", "ri", "mo", "la", "ne", "so", "ta", "vi", "ju", "pe"]
words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(300)]
chars = sorted(set("".join(words)))
max_len = max(len(w) for w in words)


class NamesDataset(Dataset):
    def __init__(self, words):
        self.words = words
        self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}

    def __len__(self):
        return len(self.words)

    def __getitem__(self, idx):
        ix = torch.tensor([self.stoi[c] for c in self.words[idx]], dtype=torch.long)
        x = torch.zeros(max_len + 1, dtype=torch.long)
        y = torch.zeros(max_len + 1, dtype=torch.long)
        x[1:1 + len(ix)] = ix
        y[:len(ix)] = ix
        y[len(ix) + 1:] = -1
        return x, y


class InfiniteDataLoader:
    def __init__(self, dataset, **kwargs):
        sampler = torch.utils.data.RandomSampler(dataset, replacement=True,
                                                 num_samples=int(1e10))
        self.train_loader = DataLoader(dataset, sampler=sampler, **kwargs)
        self.data_iter = iter(self.train_loader)

    def next(self):
        try:
            batch = next(self.data_iter)
        except StopIteration:
            self.data_iter = iter(self.train_loader)
            batch = next(self.data_iter)
        return batch


torch.manual_seed(42)
train = NamesDataset(words[:250])
test = NamesDataset(words[250:])

model = nn.Sequential(nn.Embedding(len(chars) + 1, 16), nn.Linear(16, 32), nn.Tanh(),
                      nn.Linear(32, len(chars) + 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01,
                              betas=(0.9, 0.99), eps=1e-8)
loader = InfiniteDataLoader(train, batch_size=16, pin_memory=True, num_workers=0)
for step in range(30):
    X, Y = loader.next()
    logits = model(X)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), Y.view(-1), ignore_index=-1)
    model.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(f"step {step} | loss {loss.item():.4f} | first rows {X[:2, 1].tolist()}")


@torch.inference_mode()
def evaluate(dataset, batch_size, max_batches=None):
    model.eval()
    loader = DataLoader(dataset, shuffle=True, batch_size=batch_size, num_workers=0)
    losses = []
    for i, (X, Y) in enumerate(loader):
        logits = model(X)
        losses.append(F.cross_entropy(logits.view(-1, logits.size(-1)), Y.view(-1),
                                      ignore_index=-1).item())
        if max_batches is not None and i >= max_batches:
            break
    model.train()
    return sum(losses) / len(losses)


print(f"train loss {evaluate(train, 20, max_batches=3):.6f} test loss {evaluate(test, 20):.6f}")

# the other loader shapes
dropped = DataLoader(test, batch_size=7, shuffle=True, drop_last=True)
print("drop_last batches:", len(dropped), [len(x) for x, _ in dropped])
batches = DataLoader(test, batch_sampler=BatchSampler(SequentialSampler(test), 12, False),
                     collate_fn=lambda rows: torch.stack([x for x, _ in rows]).sum(1))
print("batch_sampler sums:", [b.tolist()[:3] for b in batches])
g = torch.Generator().manual_seed(5)
subset = DataLoader(train, batch_size=4, sampler=SubsetRandomSampler(range(0, 40, 3), g))
print("subset first column:", [x[:, 1].tolist() for x, _ in subset])
print("unbatched:", [x[1].item() for x, _ in DataLoader(test, batch_size=None)][:8])
print("after the loaders:", torch.randint(0, 1000, (4,)).tolist(),
      torch.empty(3, dtype=torch.long).random_().tolist())

# autograd rules: a second backward through saved values, and .grad assignment
w = torch.ones(3, requires_grad=True)
y = (w * w).sum()
y.backward(retain_graph=True)
y.backward()
print("twice with retain_graph:", w.grad.tolist())
try:
    y.backward()
except RuntimeError as error:
    print("third:", str(error).split(" (")[0])
for bad in (0.0, torch.zeros(2)):
    try:
        w.grad = bad
    except (TypeError, RuntimeError) as error:
        print("grad =", type(bad).__name__, "->", type(error).__name__)
