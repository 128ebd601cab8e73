# A character-level language model the way the RNN tutorials write one: an embedding, a
# recurrent layer (RNN, GRU or LSTM from torch.nn), a linear read-out, cross-entropy over
# shifted characters, Adam, and greedy generation that carries the hidden state along.
# Written for these tests on a generated text; runs unmodified under torch and micrograd.
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

kind = sys.argv[1] if len(sys.argv) > 1 else "LSTM"
torch.manual_seed(1337)
words = ["abc", "bca", "cab", "abba", "cc", "bacca"]
text = " ".join(words[(i * 7 + i // 3) % len(words)] for i in range(200))
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)


class CharModel(nn.Module):
    def __init__(self, vocab, width=24, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.rnn = getattr(nn, kind)(width, hidden, num_layers=2, batch_first=True,
                                     dropout=0.0)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx, state=None):
        out, state = self.rnn(self.embed(idx), state)
        return self.head(out), state


model = CharModel(len(chars)).double()
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
block, batch = 12, 8
for step in range(25):
    starts = torch.randint(0, len(data) - block - 1, (batch,))
    x = torch.stack([data[s:s + block] for s in starts])
    y = torch.stack([data[s + 1:s + block + 1] for s in starts])
    logits, _ = model(x)
    loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.10f}")

model.eval()
with torch.no_grad():
    idx, state, out = torch.tensor([[stoi["a"]]]), None, "a"
    for _ in range(30):
        logits, state = model(idx, state)
        idx = logits[:, -1].argmax(-1, keepdim=True)
        out += chars[idx.item()]
print("greedy:", out)
