# A character-level MLP in the style of the makemore lectures: a context of 3 characters,
# an embedding table, a hidden layer with batch norm, cross-entropy, a hand-written SGD
# loop with a learning-rate decay. The words are made up here; weights come from numpy.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(2024)
syllables = ["ka", "ri", "mo", "le", "an", "th", "sa", "vi", "do", "el"]
words = ["".join(rng.choice(syllables, size=rng.integers(1, 4))) for _ in range(300)]
chars = sorted(set("".join(words)))
stoi = {c: i + 1 for i, c in enumerate(chars)}
stoi["."] = 0
vocab = len(stoi)
print("words:", len(words), "vocabulary:", vocab)

block = 3
contexts, targets = [], []
for word in words:
    context = [0] * block
    for ch in word + ".":
        contexts.append(context)
        targets.append(stoi[ch])
        context = context[1:] + [stoi[ch]]
X = torch.tensor(contexts)
Y = torch.tensor(targets)
print("examples:", X.shape[0], tuple(X.shape))

model = nn.Sequential(
    nn.Embedding(vocab, 8), nn.Flatten(), nn.Linear(block * 8, 64, bias=False),
    nn.BatchNorm1d(64), nn.Tanh(), nn.Linear(64, vocab),
)
with torch.no_grad():
    start = {k: torch.tensor(rng.normal(0, 0.3, size=tuple(v.shape)))
             for k, v in model.state_dict().items() if k.endswith(("weight", "bias"))}
model.load_state_dict(start, strict=False)
parameters = list(model.parameters())
print("parameters:", sum(p.numel() for p in parameters))

batches = rng.integers(0, X.shape[0], size=(200, 32))
for step in range(200):
    ix = torch.tensor(batches[step])
    logits = model(X[ix])
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if step < 150 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if step % 40 == 0:
        print(f"{step:4d} {loss.item():.10f}")

model.eval()
with torch.no_grad():
    print("full loss:", F.cross_entropy(model(X), Y).item())
    probs = F.softmax(model(torch.tensor([[0, 0, 0]])), dim=1)
    print("most likely first letter:", int(probs.argmax(dim=1).item()),
          round(probs.max().item(), 6))
