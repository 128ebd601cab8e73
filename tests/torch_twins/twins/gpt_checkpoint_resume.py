"""A small character GPT trained the way research scripts train one: a config overridable
from the command line (--key=value), backend flags, a null/autocast context, a disabled
GradScaler, gradient clipping, a cosine learning rate, evaluation under no_grad, a
checkpoint with model, optimizer and scaler state, and a resumed run from it."""

import math
import os
import random
import sys
from contextlib import nullcontext

import torch
import torch.nn as nn
from torch.nn import functional as F

# -- config: defaults, overridden by --key=value ---------------------------------------
batch_size = 4
block_size = 16
n_embd = 32
n_head = 4
n_layer = 2
max_iters = 12
eval_interval = 6
eval_iters = 3
learning_rate = 3e-3
min_lr = 3e-4
warmup_iters = 3
grad_clip = 1.0
init_from = "scratch"
out_dir = "out"
for arg in sys.argv[1:]:
    key, value = arg[2:].split("=")
    assert key in globals(), f"unknown config key {key}"
    globals()[key] = type(globals()[key])(value)

# -- the world a GPU script checks, on the CPU ------------------------------------------
ddp = int(os.environ.get("RANK", -1)) != -1
print("ddp:", ddp, "distributed available:", torch.distributed.is_available() and
      torch.distributed.is_initialized())
torch.manual_seed(1337)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device = "cuda" if torch.cuda.is_available() else "cpu"
if torch.backends.mps.is_available():
    device = "mps"
print("device:", device, "accelerator:", torch.accelerator.is_available())
torch.set_default_device(device)
device_type = "cuda" if "cuda" in device else "cpu"
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float32"
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type)
scaler = torch.amp.GradScaler("cpu", enabled=(dtype == "float16"))

# -- data: a text made here ---------------------------------------------------------------
words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper"]
rng = random.Random(7)
text = "\n".join(" ".join(rng.choice(words) for _ in range(6)) for _ in range(120))
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n = int(0.9 * len(data))
splits = {"train": data[:n], "val": data[n:]}


def get_batch(split):
    d = splits[split]
    ix = torch.randint(len(d) - block_size, (batch_size,))
    x = torch.stack([d[i:i + block_size] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + block_size] for i in ix])
    return x, y


# -- model ----------------------------------------------------------------------------------
class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                 nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(len(chars), n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, len(chars), bias=False)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        T = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(0, T, dtype=torch.long))
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -block_size:])
            probs = F.softmax(logits[:, -1, :], dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


@torch.no_grad()
def estimate_loss():
    model.eval()
    out = {}
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                _, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean().item()
    model.train()
    return out


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)


model = GPT()
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95),
                              weight_decay=0.1)
iter_num = 0
if init_from == "resume":
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"), map_location=device)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scaler.load_state_dict(checkpoint["scaler"])
    iter_num = checkpoint["iter_num"]
    print(f"resumed at {iter_num}, best val loss {checkpoint['best_val_loss']:.4f}")
print(f"number of parameters: {sum(p.numel() for p in model.parameters())}")

best_val_loss = 1e9
X, Y = get_batch("train")
while iter_num < max_iters:
    for group in optimizer.param_groups:
        group["lr"] = get_lr(iter_num)
    if iter_num % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if losses["val"] < best_val_loss and iter_num > 0:
            best_val_loss = losses["val"]
            os.makedirs(out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scaler": scaler.state_dict(), "iter_num": iter_num,
                        "best_val_loss": best_val_loss}, os.path.join(out_dir, "ckpt.pt"))
            print("saved checkpoint")
    with ctx:
        _, loss = model(X, Y)
    X, Y = get_batch("train")
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item():.4f}, grad norm {norm.item():.4f}, "
          f"lr {get_lr(iter_num):.6f}")
    iter_num += 1

torch.set_grad_enabled(False)  # a call, not a block: stays off for sampling
print("grad enabled:", torch.is_grad_enabled())
sample = model.generate(torch.zeros((1, 1), dtype=torch.long), 40)[0].tolist()
print("".join(chars[i] for i in sample))
