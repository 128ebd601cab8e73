"""makemore part 2 style: a character-level MLP (Bengio et al. 2003) trained on made-up names.

Written for this project as a specification for `micrograd.torch`: it calls torch the way
the lecture's notebook does. Runs as `python makemore_mlp.py` with real torch; prints one
`name value` per line.
"""

import random

import torch
import torch.nn.functional as F


def made_up_names(count, seed):
    """Deterministic pronounceable lowercase names (not the real names file)."""
    syllables = ["ka", "lo", "mi", "ra", "na", "el", "is", "an", "jo", "vu", "qu", "ze",
                 "by", "xa", "wi", "fe", "do", "gu", "ph", "ti", "so", "ce", "ly", "ve"]
    rng = random.Random(seed)
    names = []
    while len(names) < count:
        name = "".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.3:
            name = name[:-1]
        names.append(name)
    return names


words = made_up_names(300, seed=2)
print("words", len(words))

chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
assert len(itos) == 27, "the word list must use all 26 letters"

block_size = 3  # context length: how many characters we take to predict the next one


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    return X, Y


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])
print("Xtr_shape", tuple(Xtr.shape))
print("Xdev_shape", tuple(Xdev.shape))

# the embedding, then the layers, as in the lecture
g = torch.Generator().manual_seed(2147483647)  # for reproducibility
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]
print("parameters", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

# the loss written out by hand equals F.cross_entropy on the first five examples
emb = C[Xtr[:5]]
h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
logits = h @ W2 + b2
counts = logits.exp()
prob = counts / counts.sum(1, keepdims=True)
manual_loss = -prob[torch.arange(5), Ytr[:5]].log().mean()
print("manual_loss", manual_loss.item())
print("cross_entropy_loss", F.cross_entropy(logits, Ytr[:5]).item())

lre = torch.linspace(-3, 0, 1000)
lrs = 10**lre
print("lr_at_500", lrs[500].item())

lri = []
lossi = []
stepi = []
for i in range(1500):
    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)

    # forward pass
    emb = C[Xtr[ix]]  # (32, 3, 10)
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 200)
    logits = h @ W2 + b2  # (32, 27)
    loss = F.cross_entropy(logits, Ytr[ix])

    # backward pass
    for p in parameters:
        p.grad = None
    loss.backward()

    # update: the learning-rate step at 1000
    lr = 0.1 if i < 1000 else 0.01
    for p in parameters:
        p.data += -lr * p.grad

    stepi.append(i)
    lossi.append(loss.log10().item())
    if i % 250 == 0:
        print(f"loss_step{i}", loss.item())
print("loss_last", loss.item())
print("lossi_mean", sum(lossi) / len(lossi))


@torch.no_grad()  # this decorator disables gradient tracking
def split_loss(split):
    x, y = {
        "train": (Xtr, Ytr),
        "val": (Xdev, Ydev),
        "test": (Xte, Yte),
    }[split]
    emb = C[x]  # (N, block_size, n_embd)
    h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, y)
    return loss.item()


for split in ["train", "val", "test"]:
    print(f"{split}_loss", split_loss(split))

# sample from the model
g = torch.Generator().manual_seed(2147483647 + 10)
for k in range(10):
    out = []
    context = [0] * block_size
    while True:
        emb = C[torch.tensor([context])]  # (1, block_size, d)
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        logits = h @ W2 + b2
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, replacement=True, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break
    print(f"sample{k}", "".join(itos[i] for i in out))
