"""makemore part 5 style: a WaveNet-like hierarchy of hand-written layer classes.

Written for this project as a specification for `micrograd.torch`: Linear, BatchNorm1d
(over 2-d input and over 3-d input reducing dims (0, 1)), Tanh, Embedding,
FlattenConsecutive (a `view`) and Sequential, all written in plain torch tensors; a few
training steps, then eval mode and split losses. Prints one `name value` per line.
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


words = made_up_names(300, seed=5)
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
assert vocab_size == 27, "the word list must use all 26 letters"

block_size = 8  # context length: how many characters we take to predict the next one


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])
print("Xtr_shape", tuple(Xtr.shape))


# --- the layers, written by hand --------------------------------------------------------
class Linear:
    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out)) / fan_in**0.5  # kaiming init
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        # parameters (trained with backprop)
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        # buffers (trained with a running 'momentum update')
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        if self.training:
            if x.ndim == 2:
                dim = 0
            elif x.ndim == 3:
                dim = (0, 1)
            xmean = x.mean(dim, keepdim=True)  # batch mean
            xvar = x.var(dim, keepdim=True)  # batch variance
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)  # normalize to unit variance
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


class Embedding:
    def __init__(self, num_embeddings, embedding_dim):
        self.weight = torch.randn((num_embeddings, embedding_dim))

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


class FlattenConsecutive:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


torch.manual_seed(42)  # seed rng for reproducibility

n_embd = 10  # the dimensionality of the character embedding vectors
n_hidden = 48  # the number of neurons in the hidden layer of the MLP
model = Sequential([
    Embedding(vocab_size, n_embd),
    FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden),
    Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden),
    Tanh(),
    Linear(n_hidden, vocab_size),
])

# parameter init
with torch.no_grad():
    model.layers[-1].weight *= 0.1  # last layer make less confident

parameters = model.parameters()
print("parameters", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

# look at the shapes on a batch of four
ix = torch.randint(0, Xtr.shape[0], (4,))
Xb, Yb = Xtr[ix], Ytr[ix]
logits = model(Xb)
for k, layer in enumerate(model.layers):
    print(f"layer{k}_{layer.__class__.__name__}_out_shape", tuple(layer.out.shape))

max_steps = 400
batch_size = 32
lossi = []
for i in range(max_steps):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    Xb, Yb = Xtr[ix], Ytr[ix]

    # forward pass
    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)

    # backward pass
    for p in parameters:
        p.grad = None
    loss.backward()

    # update: simple SGD
    lr = 0.1 if i < 300 else 0.01  # step learning rate decay
    for p in parameters:
        p.data += -lr * p.grad

    if i % 100 == 0:
        print(f"loss_step{i}", loss.item())
    lossi.append(loss.log10().item())
print("loss_last", loss.item())
smoothed = torch.tensor(lossi).view(-1, 100).mean(1)
for k in range(smoothed.shape[0]):
    print(f"lossi_mean_block{k}", smoothed[k].item())

# put layers into eval mode (needed for batchnorm especially)
for layer in model.layers:
    layer.training = False


@torch.no_grad()  # this decorator disables gradient tracking inside pytorch
def split_loss(split):
    x, y = {"train": (Xtr, Ytr), "val": (Xdev, Ydev), "test": (Xte, Yte)}[split]
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    return loss.item()


for split in ["train", "val"]:
    print(f"{split}_loss", split_loss(split))
print("bn_running_mean_sum", model.layers[3].running_mean.sum().item())
print("bn_running_var_shape", tuple(model.layers[3].running_var.shape))

# sample from the model
for k in range(5):
    out = []
    context = [0] * block_size
    while True:
        logits = model(torch.tensor([context]))
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break
    print(f"sample{k}", "".join(itos[i] for i in out))
