"""`micrograd demo gpt`: a small character-level transformer (the GPT lecture's model) on
micrograd.torch, trained on Shakespeare.

The model: token and position embeddings; `n_layer` blocks, each LayerNorm -> masked
multi-head self-attention (a lower-triangular `tril` buffer and `masked_fill` keep every
position from seeing the future) -> residual, then LayerNorm -> a feed-forward layer
(4x wider, ReLU) -> residual; a last LayerNorm and a linear head over the characters. AdamW,
cross-entropy on the next character, loss estimates on held-out text every `eval_interval`
steps, then text generated one character at a time with `torch.multinomial`.

The code is a PyTorch script's: `micrograd.torch` is imported as `torch`; with torch's random
streams reproduced, `torch.manual_seed(1337)` gives the same model as in PyTorch.

Data: tiny Shakespeare (input.txt of Karpathy's char-rnn, 1,115,394 bytes, public domain),
from `--data PATH` (any UTF-8 text) or downloaded once into the data cache with its SHA-256
checked.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import micrograd.torch as torch
import micrograd.torch.nn as nn
import micrograd.torch.nn.functional as F
from micrograd._validate import check_positive_int
from micrograd.demos.common import training_steps
from micrograd.demos.textdata import ProgressBar, TextSource, read_text, save_loss_plot

__all__ = ["SHAKESPEARE", "GPTConfig", "GPTRun", "GPTLanguageModel", "run_demo", "train_gpt"]

SHAKESPEARE = TextSource(
    name="gpt",
    urls=("https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/"
          "input.txt",
          "https://cdn.jsdelivr.net/gh/karpathy/char-rnn@master/data/tinyshakespeare/input.txt"),
    sha256="86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
    filename="tinyshakespeare.txt",
    size=1_115_394,
    aliases=("input.txt",),
)


@dataclass
class GPTConfig:
    """The model's and the training's sizes (the lecture's, scaled down for a laptop CPU)."""

    block_size: int = 32  # how many characters of context the model sees
    n_embd: int = 64
    n_head: int = 4
    n_layer: int = 4
    dropout: float = 0.0
    batch_size: int = 16
    lr: float = 1e-3
    eval_interval: int = 100
    eval_iters: int = 10
    steps: int = 500
    seed: int = 1337

    def check(self) -> None:
        for name in ("block_size", "n_embd", "n_head", "n_layer", "batch_size",
                     "eval_interval", "eval_iters", "steps"):
            check_positive_int(name, getattr(self, name))
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd ({self.n_embd}) must be a multiple of n_head "
                             f"({self.n_head})")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout!r}")


class Head(nn.Module):
    """One head of masked self-attention."""

    def __init__(self, config: GPTConfig, head_size: int):
        super().__init__()
        self.key = nn.Linear(config.n_embd, head_size, bias=False)
        self.query = nn.Linear(config.n_embd, head_size, bias=False)
        self.value = nn.Linear(config.n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(config.block_size,
                                                           config.block_size)))
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: Any) -> Any:
        T = x.shape[1]
        k = self.key(x)  # (B, T, head_size)
        q = self.query(x)
        # affinities, scaled so that the softmax starts diffuse: (B, T, T)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # no peeking ahead
        wei = self.dropout(F.softmax(wei, dim=-1))
        return wei @ self.value(x)


class MultiHeadAttention(nn.Module):
    """Several heads side by side, concatenated and projected back to n_embd."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        head_size = config.n_embd // config.n_head
        self.heads = nn.ModuleList([Head(config, head_size) for _ in range(config.n_head)])
        self.proj = nn.Linear(head_size * config.n_head, config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: Any) -> Any:
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        return self.dropout(self.proj(out))


class FeedForward(nn.Module):
    """A position-wise MLP, four times wider inside."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(config.n_embd, 4 * config.n_embd), nn.ReLU(),
            nn.Linear(4 * config.n_embd, config.n_embd), nn.Dropout(config.dropout),
        )

    def forward(self, x: Any) -> Any:
        return self.net(x)


class Block(nn.Module):
    """Communication (attention) then computation (feed-forward), each on a residual path."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.sa = MultiHeadAttention(config)
        self.ffwd = FeedForward(config)
        self.ln1 = nn.LayerNorm(config.n_embd)
        self.ln2 = nn.LayerNorm(config.n_embd)

    def forward(self, x: Any) -> Any:
        x = x + self.sa(self.ln1(x))
        return x + self.ffwd(self.ln2(x))


class GPTLanguageModel(nn.Module):
    """Predicts the next character from up to block_size previous ones."""

    def __init__(self, config: GPTConfig, vocab_size: int):
        super().__init__()
        self.block_size = config.block_size
        self.token_embedding_table = nn.Embedding(vocab_size, config.n_embd)
        self.position_embedding_table = nn.Embedding(config.block_size, config.n_embd)
        self.blocks = nn.Sequential(*[Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, vocab_size)

    def forward(self, idx: Any, targets: Any = None) -> tuple[Any, Any]:
        B, T = idx.shape
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        pos_emb = self.position_embedding_table(torch.arange(T))  # (T, C)
        x = self.ln_f(self.blocks(tok_emb + pos_emb))
        logits = self.lm_head(x)  # (B, T, vocab_size)
        if targets is None:
            return logits, None
        B, T, C = logits.shape
        return logits, F.cross_entropy(logits.view(B * T, C), targets.view(B * T))

    def generate(self, idx: Any, max_new_tokens: int) -> Any:
        """Extend each row of idx (B, T) by max_new_tokens sampled characters."""
        for _ in range(max_new_tokens):
            with torch.no_grad():
                logits, _ = self(idx[:, -self.block_size:])
            probs = F.softmax(logits[:, -1, :], dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


@dataclass
class GPTRun:
    """What training produced: the model, one loss per step, the estimates, a sample."""

    model: Any
    chars: str
    losses: list[float] = field(default_factory=list)
    estimates: list[tuple[int, float, float]] = field(default_factory=list)  # step, train, val
    sample: str = ""
    seconds: float = 0.0


def train_gpt(text: str, config: GPTConfig | None = None, sample_length: int = 300,
              on_step: Any = None, on_estimate: Any = None) -> GPTRun:
    """Train on the first 90% of `text`, estimate the losses on both parts every
    eval_interval steps and at the end, then generate `sample_length` characters.
    on_step(step, loss) after every step (1-based); on_estimate(step, train, val)."""
    config = config or GPTConfig()
    config.check()
    if len(text) < 2 * config.block_size + 2:
        raise ValueError(f"the text has {len(text)} characters; the demo needs at least "
                         f"{2 * config.block_size + 2} (twice block_size, plus 2)")
    torch.manual_seed(config.seed)
    chars = "".join(sorted(set(text)))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = max(int(0.9 * len(data)), len(data) - max(config.block_size + 1, len(data) // 10))
    splits = {"train": data[:n], "val": data[n:]}

    def get_batch(split: str) -> tuple[Any, Any]:
        part = splits[split]
        ix = torch.randint(len(part) - config.block_size, (config.batch_size,))
        x = torch.stack([part[i:i + config.block_size] for i in ix])
        y = torch.stack([part[i + 1:i + config.block_size + 1] for i in ix])
        return x, y

    def estimate_loss() -> dict[str, float]:
        out = {}
        model.eval()
        for split in splits:
            losses = torch.zeros(config.eval_iters)
            for k in range(config.eval_iters):
                with torch.no_grad():
                    _, loss = model(*get_batch(split))
                losses[k] = loss.item()
            out[split] = losses.mean().item()
        model.train()
        return out

    model = GPTLanguageModel(config, len(chars))
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    run = GPTRun(model, chars)
    start = time.perf_counter()
    def estimate(step: int) -> None:
        losses = estimate_loss()
        run.estimates.append((step, losses["train"], losses["val"]))
        if on_estimate is not None:
            on_estimate(step, losses["train"], losses["val"])

    def step_loss(step: int) -> Any:
        if step % config.eval_interval == 0:
            estimate(step)
        _, loss = model(*get_batch("train"))
        return loss

    for step, loss in training_steps(optimizer, config.steps, step_loss):
        run.losses.append(loss.item())
        if on_step is not None:
            on_step(step + 1, run.losses[-1])
    estimate(config.steps)
    run.seconds = time.perf_counter() - start
    context = torch.zeros((1, 1), dtype=torch.long)  # start from the first character
    run.sample = "".join(chars[i] for i in model.generate(context, sample_length)[0].tolist())
    return run


def run_demo(out: str = "out", steps: int | None = None, seed: int | None = None,
             data: str | None = None) -> int:
    """`micrograd demo gpt`: train, print loss estimates and a sample, write the loss plot."""
    config = GPTConfig()
    if steps is not None:
        config.steps = steps
    if seed is not None:
        config.seed = seed
    config.check()
    text = read_text(SHAKESPEARE, data)
    vocab = len(set(text))
    model_size = sum(p.numel() for p in GPTLanguageModel(config, vocab).parameters())
    print(f"gpt: {len(text):,} characters, {vocab} distinct; transformer: {config.n_layer} "
          f"blocks, {config.n_head} heads, n_embd {config.n_embd}, context "
          f"{config.block_size}, {model_size:,} parameters; AdamW lr {config.lr:g}, "
          f"{config.steps} steps of batch {config.batch_size}, seed {config.seed}", flush=True)
    print(f"gpt: a model that knows nothing scores -log(1/{vocab}) = {math.log(vocab):.4f}",
          flush=True)
    bar = ProgressBar("gpt", config.steps)

    def on_estimate(step: int, train: float, val: float) -> None:
        bar.write(f"step {step:>{len(str(config.steps))}}: train loss {train:.4f}, "
                  f"val loss {val:.4f}")

    try:
        run = train_gpt(text, config, on_step=bar, on_estimate=on_estimate)
    finally:
        bar.close()
    print(f"gpt: trained in {run.seconds:.1f} s; a sample:\n{run.sample}")
    path = save_loss_plot(run.losses, out, "gpt",
                          f"gpt: minibatch cross-entropy ({config.steps} steps, log scale)")
    if path is not None:
        print(f"wrote {path}")
    return 0
