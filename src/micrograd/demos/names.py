"""`micrograd demo names`: makemore part 3 on micrograd.torch -- a character-level MLP that
learns to make up names.

The lecture's network (Bengio et al. 2003, with BatchNorm): each name is read three
characters at a time; the three characters are looked up in an embedding table (10 numbers
each), concatenated, sent through Linear(30, 200) -> BatchNorm1d -> tanh -> Linear(200, 27),
and cross-entropy scores the prediction of the next character. Minibatches of 32 drawn with
the lecture's generator (seed 2147483647), SGD with lr 0.1, then 0.01 for the last quarter.

The code is a PyTorch script's: `micrograd.torch` is imported as `torch`, and with torch's
random streams reproduced the numbers are the ones real PyTorch prints for the same code.

Data: the makemore repository's names.txt (32,033 names), from `--data PATH` or downloaded
once into the data cache with its SHA-256 checked.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

import micrograd.torch as torch
import micrograd.torch.nn.functional as F
from micrograd._validate import check_positive_int
from micrograd.demos.common import training_steps
from micrograd.demos.textdata import ProgressBar, TextSource, read_text, save_loss_plot

__all__ = ["NAMES", "NamesRun", "build_dataset", "load_words", "run_demo", "sample_names",
           "train_names", "vocabulary"]

NAMES = TextSource(
    name="names",
    urls=("https://raw.githubusercontent.com/karpathy/makemore/master/names.txt",
          "https://cdn.jsdelivr.net/gh/karpathy/makemore@master/names.txt"),
    sha256="0a30b5557f192f32ab962680889aac5f6fda0f4cecf40a6d0b5694f58ea8cc4d",
    filename="names.txt",
    size=228_145,
)
STEPS, SEED, BATCH_SIZE, BLOCK_SIZE, N_EMBD, N_HIDDEN, LR = 5000, 2147483647, 32, 3, 10, 200, 0.1
END = "."  # the token that starts and ends every name


def load_words(path: str | None = None, data_dir: str | None = None) -> list[str]:
    """The names, one per line (blank lines skipped), from `path` or the download cache."""
    words = [line.strip() for line in read_text(NAMES, path, data_dir).splitlines()]
    words = [w for w in words if w]
    bad = sorted({c for w in words for c in w if c == END or c.isspace()})
    if bad:
        raise ValueError(f"names may not contain {bad!r}: {END!r} marks the end of a name")
    return words


def vocabulary(words: list[str]) -> tuple[dict[str, int], dict[int, str]]:
    """stoi and itos: '.' is 0, the letters that occur in the names follow in sorted order."""
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi[END] = 0
    return stoi, {i: s for s, i in stoi.items()}


def build_dataset(words: list[str], stoi: dict[str, int],
                  block_size: int = BLOCK_SIZE) -> tuple[Any, Any]:
    """X: every context of `block_size` characters (int64, padded with '.'), Y: the next one."""
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + END:
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X, dtype=torch.long), torch.tensor(Y, dtype=torch.long)


@dataclass
class NamesRun:
    """What training produced: the model, one loss per step, the split losses, samples."""

    model: Any
    vocab_size: int
    losses: list[float] = field(default_factory=list)
    split_loss: dict[str, float] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)
    seconds: float = 0.0


def make_model(vocab_size: int, block_size: int = BLOCK_SIZE, n_embd: int = N_EMBD,
               n_hidden: int = N_HIDDEN) -> Any:
    """Embedding -> Flatten -> Linear (no bias: BatchNorm has one) -> BatchNorm1d -> Tanh ->
    Linear; the last layer scaled by 0.1 so that the first loss is near -log(1/vocab)."""
    model = torch.nn.Sequential(
        torch.nn.Embedding(vocab_size, n_embd), torch.nn.Flatten(),
        torch.nn.Linear(n_embd * block_size, n_hidden, bias=False),
        torch.nn.BatchNorm1d(n_hidden), torch.nn.Tanh(),
        torch.nn.Linear(n_hidden, vocab_size),
    )
    with torch.no_grad():
        model[-1].weight *= 0.1
    return model


def split_loss(model: Any, X: Any, Y: Any) -> float:
    """The mean cross-entropy over a whole split, in eval mode (BatchNorm's running stats)."""
    model.eval()
    with torch.no_grad():
        loss = F.cross_entropy(model(X), Y).item()
    model.train()
    return loss


def sample_names(model: Any, itos: dict[int, str], count: int, generator: Any,
                 block_size: int = BLOCK_SIZE, max_length: int = 50) -> list[str]:
    """`count` names drawn one character at a time from the model's softmax."""
    model.eval()
    names = []
    for _ in range(count):
        out: list[str] = []
        context = [0] * block_size
        while len(out) < max_length:
            with torch.no_grad():
                probs = F.softmax(model(torch.tensor([context])), dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=generator).item()
            if ix == 0:
                break
            out.append(itos[ix])
            context = context[1:] + [ix]
        names.append("".join(out))
    model.train()
    return names


def train_names(words: list[str], steps: int = STEPS, seed: int = SEED,
                batch_size: int = BATCH_SIZE, lr: float = LR, n_samples: int = 10,
                on_step: Any = None, **sizes: int) -> NamesRun:
    """Train on 80% of the names (shuffled by random.Random(42), as the lecture), report the
    train and validation losses, sample `n_samples` names. `sizes`: block_size, n_embd,
    n_hidden. on_step(step, loss) after every step (1-based)."""
    check_positive_int("steps", steps)
    block_size = sizes.pop("block_size", BLOCK_SIZE)
    stoi, itos = vocabulary(words)
    shuffled = list(words)
    random.Random(42).shuffle(shuffled)
    n1, n2 = int(0.8 * len(shuffled)), int(0.9 * len(shuffled))
    Xtr, Ytr = build_dataset(shuffled[:n1], stoi, block_size)
    Xdev, Ydev = build_dataset(shuffled[n1:n2] or shuffled[:n1], stoi, block_size)

    g = torch.Generator().manual_seed(seed)  # the minibatches and the samples
    torch.manual_seed(seed)  # the layers' initial weights
    model = make_model(len(stoi), block_size, **sizes)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    run = NamesRun(model, len(stoi))
    start = time.perf_counter()
    def step_loss(k: int) -> Any:
        if k == steps * 3 // 4:  # the lecture's learning-rate decay, from this step on
            for group in optimizer.param_groups:
                group["lr"] = lr / 10
        ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        return F.cross_entropy(model(Xtr[ix]), Ytr[ix])

    for k, loss in training_steps(optimizer, steps, step_loss):
        run.losses.append(loss.item())
        if on_step is not None:
            on_step(k + 1, run.losses[-1])
    run.seconds = time.perf_counter() - start
    run.split_loss = {"train": split_loss(model, Xtr, Ytr), "val": split_loss(model, Xdev, Ydev)}
    run.samples = sample_names(model, itos, n_samples, g, block_size)
    return run


def run_demo(out: str = "out", steps: int | None = None, seed: int | None = None,
             data: str | None = None) -> int:
    """`micrograd demo names`: train, print losses and sampled names, write the loss plot."""
    steps = STEPS if steps is None else steps
    seed = SEED if seed is None else seed
    words = load_words(data)
    stoi, _ = vocabulary(words)
    print(f"names: {len(words)} names, {len(stoi)} characters; MLP: embedding {N_EMBD}, "
          f"context {BLOCK_SIZE}, hidden {N_HIDDEN} with BatchNorm, tanh; SGD lr {LR:g} "
          f"(then {LR / 10:g}), {steps} steps of batch {BATCH_SIZE}, seed {seed}", flush=True)
    print(f"names: a model that knows nothing scores -log(1/{len(stoi)}) = "
          f"{math.log(len(stoi)):.4f}", flush=True)
    bar = ProgressBar("names", steps)
    try:
        run = train_names(words, steps=steps, seed=seed, on_step=bar)
    finally:
        bar.close()
    print(f"names: trained in {run.seconds:.1f} s; train loss {run.split_loss['train']:.4f}, "
          f"val loss {run.split_loss['val']:.4f}")
    print("names: sampled from the model:")
    for name in run.samples:
        print(f"  {name}")
    path = save_loss_plot(run.losses, out, "names",
                          f"names: minibatch cross-entropy ({steps} steps, log scale)")
    if path is not None:
        print(f"wrote {path}")
    return 0
