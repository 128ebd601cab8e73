"""makemore part 3 style: activations, gradients and a hand-written BatchNorm.

Written for this project as a specification for `micrograd.torch`. First an MLP with a
hand-written batch normalisation (gain, bias, running statistics updated under no_grad)
and kaiming-style initialisation; then a deeper network of torch.nn layers kept in a
list, with retain_grad() on its activations and update-to-data ratios. Prints one
`name value` per line.
"""

import random

import torch
import torch.nn as nn
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


words = made_up_names(300, seed=3)
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
assert vocab_size == 27, "the word list must use all 26 letters"

block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
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

# --- 1. the MLP with a hand-written BatchNorm ------------------------------------------
n_embd = 10  # the dimensionality of the character embedding vectors
n_hidden = 200  # the number of neurons in the hidden layer

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd), generator=g)
fan_in = n_embd * block_size
W1 = torch.randn((fan_in, n_hidden), generator=g) * (5 / 3) / (fan_in**0.5)
b1 = torch.randn(n_hidden, generator=g) * 0.01
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
# BatchNorm parameters and buffers
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))

parameters = [C, W1, b1, W2, b2, bngain, bnbias]
print("parameters", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

max_steps = 1000
batch_size = 32
lossi = []
for i in range(max_steps):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]

    # forward pass
    emb = C[Xb]  # embed the characters into vectors
    embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
    hpreact = embcat @ W1 + b1  # hidden layer pre-activation
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)  # hidden layer
    logits = h @ W2 + b2  # output layer
    loss = F.cross_entropy(logits, Yb)

    if i == 0:
        print("init_loss", loss.item())
        print("init_tanh_saturated", (h.abs() > 0.99).float().mean().item())
        print("init_hpreact_std", hpreact.std().item())

    # backward pass
    for p in parameters:
        p.grad = None
    loss.backward()

    lr = 0.1 if i < 700 else 0.01  # step learning rate decay
    for p in parameters:
        p.data += -lr * p.grad

    if i % 200 == 0:
        print(f"bn_loss_step{i}", loss.item())
    lossi.append(loss.log10().item())
print("bn_loss_last", loss.item())
print("bnmean_running_sum", bnmean_running.sum().item())
print("bnstd_running_sum", bnstd_running.sum().item())

# calibrate the batch norm statistics over the whole training set
with torch.no_grad():
    emb = C[Xtr]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1 + b1
    bnmean = hpreact.mean(0, keepdim=True)
    bnstd = hpreact.std(0, keepdim=True)
print("calibrated_mean_minus_running", (bnmean - bnmean_running).abs().max().item())


@torch.no_grad()
def split_loss(split):
    x, y = {"train": (Xtr, Ytr), "val": (Xdev, Ydev), "test": (Xte, Yte)}[split]
    emb = C[x]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1 + b1
    hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, y)
    return loss.item()


for split in ["train", "val"]:
    print(f"bn_{split}_loss", split_loss(split))

# --- 2. a deeper network of torch.nn layers in a list ----------------------------------
n_hidden = 100
torch.manual_seed(2147483647)
C = torch.randn((vocab_size, n_embd))
layers = [
    nn.Linear(n_embd * block_size, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
    nn.Linear(n_hidden, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
    nn.Linear(n_hidden, n_hidden, bias=False), nn.BatchNorm1d(n_hidden), nn.Tanh(),
    nn.Linear(n_hidden, vocab_size, bias=False), nn.BatchNorm1d(vocab_size),
]
with torch.no_grad():
    # last layer: make it less confident
    layers[-1].weight *= 0.1
    # all other layers: apply the tanh gain
    for layer in layers[:-1]:
        if isinstance(layer, nn.Linear):
            layer.weight *= 5 / 3

parameters = [C] + [p for layer in layers for p in layer.parameters()]
print("deep_parameters", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

ud = []
lr = 0.1
for i in range(200):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    Xb, Yb = Xtr[ix], Ytr[ix]

    emb = C[Xb]
    x = emb.view(emb.shape[0], -1)
    outs = []
    for layer in layers:
        x = layer(x)
        outs.append(x)
    loss = F.cross_entropy(x, Yb)

    for out in outs:
        out.retain_grad()  # to look at the gradients of the activations
    for p in parameters:
        p.grad = None
    loss.backward()

    for p in parameters:
        p.data += -lr * p.grad

    with torch.no_grad():
        ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])

    if i == 0:
        # activation and gradient statistics of the tanh layers, as the lecture plots them
        for k, (layer, t) in enumerate(zip(layers, outs, strict=False)):
            if isinstance(layer, nn.Tanh):
                print(f"tanh{k}_mean", t.mean().item())
                print(f"tanh{k}_std", t.std().item())
                print(f"tanh{k}_saturated_percent", ((t.abs() > 0.97).float().mean() * 100).item())
                print(f"tanh{k}_grad_std", t.grad.std().item())
                hy, hx = torch.histogram(t.detach(), density=True)
                print(f"tanh{k}_hist_bins", hx.shape[0])
        for k, p in enumerate(parameters):
            if p.ndim == 2:
                print(f"param{k}_grad_data_ratio", (p.grad.std() / p.data.std()).item())
    if i % 50 == 0:
        print(f"deep_loss_step{i}", loss.item())
print("deep_loss_last", loss.item())
for k in range(len(parameters)):
    print(f"ud_last_param{k}", ud[-1][k])

for layer in layers:
    layer.eval()
with torch.no_grad():
    x = C[Xdev].view(Xdev.shape[0], -1)
    for layer in layers:
        x = layer(x)
    print("deep_val_loss", F.cross_entropy(x, Ydev).item())
print("bn_running_var_sum", layers[1].running_var.sum().item())
