"""W9: nanoGPT's shakespeare-char model and training step, written against the torch API.

The architecture of nanoGPT's `model.py` (Karpathy), re-written here: a fused q/k/v
projection split in three, `F.scaled_dot_product_attention(..., is_causal=True)`, GELU
MLP, LayerNorm and Linear without biases (`bias = False`, train.py's default), weight
tying between the token embedding and the output head, AdamW with weight decay on the
matrices only and betas (0.9, 0.99), linear learning-rate warm-up, gradient clipping at
1.0. Sizes: the README's CPU settings for `config/train_shakespeare_char.py` (block 64,
batch 12, 4 layers, 4 heads, 128 embedding, dropout 0), the character vocabulary 65.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

W9 = {"n_embd": 128, "n_head": 4, "n_layer": 4, "block": 64, "batch": 12, "vocab": 65,
      "lr": 1e-3, "text": 100000, "dropout": 0.0, "weight_decay": 0.1, "betas": (0.9, 0.99),
      "warmup": 100, "grad_clip": 1.0}


def nanogpt_model_class(torch: ModuleType, c: dict) -> type:
    """nanoGPT's GPT at sizes `c`, its modules subclassing this engine's `nn.Module`."""
    nn = torch.nn
    F = torch.nn.functional
    d, n_head = c["n_embd"], c["n_head"]

    class LayerNorm(nn.Module):  # nanoGPT's: LayerNorm with an optional bias (here none)
        def __init__(self, ndim: int):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))

        def forward(self, x: Any) -> Any:
            return F.layer_norm(x, self.weight.shape, self.weight, None, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c_attn = nn.Linear(d, 3 * d, bias=False)
            self.c_proj = nn.Linear(d, d, bias=False)
            self.resid_dropout = nn.Dropout(c["dropout"])

        def forward(self, x: Any) -> Any:
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(d, dim=2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(
                q, k, v, attn_mask=None, dropout_p=c["dropout"] if self.training else 0,
                is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c_fc = nn.Linear(d, 4 * d, bias=False)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * d, d, bias=False)
            self.dropout = nn.Dropout(c["dropout"])

        def forward(self, x: Any) -> Any:
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln_1 = LayerNorm(d)
            self.attn = CausalSelfAttention()
            self.ln_2 = LayerNorm(d)
            self.mlp = MLP()

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(c["vocab"], d),
                wpe=nn.Embedding(c["block"], d),
                drop=nn.Dropout(c["dropout"]),
                h=nn.ModuleList([Block() for _ in range(c["n_layer"])]),
                ln_f=LayerNorm(d),
            ))
            self.lm_head = nn.Linear(d, c["vocab"], bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying

        def forward(self, idx: Any, targets: Any) -> Any:
            _, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=-1)
            return logits, loss

    return GPT


def nanogpt_weight(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """nanoGPT's init: normal(0, 0.02), the residual projections 0.02/sqrt(2 n_layer),
    LayerNorm weights 1."""
    if len(shape) == 1:
        return np.ones(shape, dtype=np.float32)
    std = 0.02 / math.sqrt(2 * W9["n_layer"]) if name.endswith("c_proj.weight") else 0.02
    return (rng.standard_normal(shape) * std).astype(np.float32)


def clip_grad_norm(torch: ModuleType) -> Callable[[Any, float], Any]:
    """The engine's `nn.utils.clip_grad_norm_`; where it has none, the same arithmetic in
    torch-API ops (total 2-norm of all gradients, scale by max_norm / (norm + 1e-6) if < 1)."""
    try:
        return torch.nn.utils.clip_grad_norm_  # type: ignore[no-any-return]
    except (AttributeError, NotImplementedError, LookupError, ImportError):
        pass

    def clip(parameters: Any, max_norm: float) -> Any:
        grads = [p.grad for p in parameters if p.grad is not None]
        with torch.no_grad():
            total = torch.sqrt(sum((g * g).sum() for g in grads))
            coef = max_norm / (float(total.item()) + 1e-6)
            if coef < 1:
                for g in grads:
                    g.mul_(coef)
        return total

    return clip


def w9_step(torch_module: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """Build W9 on `torch_module`; return step(k): one nanoGPT training iteration on batch
    k, its loss. step.check_loss is batch 0's eval-mode loss before training."""
    from benchmarks.torch_steps import N_BATCHES, _tensor, eval_loss, load_weights, token_batches

    torch = torch_module
    c = W9
    model = nanogpt_model_class(torch, c)()
    load_weights(torch, model, seed, nanogpt_weight)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": c["weight_decay"]},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=c["lr"], betas=c["betas"])
    clip = clip_grad_norm(torch)
    data = [(_tensor(torch, x), _tensor(torch, y))
            for x, y in token_batches(c, seed + 1, N_BATCHES)]
    check = eval_loss(torch, model, data[0])

    def step(k: int) -> float:
        lr = c["lr"] * (k + 1) / (c["warmup"] + 1) if k < c["warmup"] else c["lr"]
        for group in optimizer.param_groups:
            group["lr"] = lr
        xb, yb = data[k % len(data)]
        _, loss = model(xb, yb)
        loss.backward()
        clip(model.parameters(), c["grad_clip"])
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.item()

    step.check_loss = check  # type: ignore[attr-defined]
    return step


def nanogpt_matmul_flops(c: dict) -> float:
    """Floating-point operations of one step's matrix products, forward and backward."""
    tokens = c["batch"] * c["block"]
    d, T = c["n_embd"], c["block"]
    weights = c["n_layer"] * (3 * d * d + d * d + 2 * d * 4 * d) + d * c["vocab"]
    attention = c["n_layer"] * 2 * (c["batch"] * T * T * d)
    return 6.0 * (tokens * weights + attention)
