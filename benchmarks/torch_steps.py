"""W6-W10: lecture-sized training steps written once against the torch API.

Every function takes the torch *module object* (`import torch`, or `micrograd.torch`), so
the same code runs on real PyTorch and on micrograd's PyTorch facade. Weights and batches
are drawn in numpy from a fixed seed and copied into the engine, so both start from the
same numbers and their losses can be compared step by step.

W6: makemore part 3's MLP step -- batch 32, embedding 10, block 3, hidden 200, vocab 27,
    float32; embedding lookup, a hand-written BatchNorm (batch mean and unbiased variance,
    running statistics under no_grad), tanh, F.cross_entropy, backward, SGD via p.data.
W7: the GPT lecture's training step -- n_embd 64, 4 heads, 4 layers, block 32, batch 16,
    vocab 65, float32; Embedding, LayerNorm, masked attention heads (tril buffer,
    masked_fill, softmax), ModuleList, Sequential feed-forward, residual blocks, AdamW.
    Dropout layers are present with p=0, so that both engines take identical steps.
W8: the same model at gpt.py's published size -- batch 64, block 256, n_embd 384, 6 heads,
    6 layers, dropout 0.2, AdamW lr 3e-4. With dropout the engines' training losses differ
    by their random masks; batch 0's eval-mode loss before training compares the models.
W9: nanoGPT's shakespeare-char model (nanogpt_steps.py); W10: tiny tensors (tiny_steps.py).

`python -m benchmarks.torch_steps [--engine torch|micrograd] [--steps N] [--workload W]`
times N steps (after a warm-up) with the engine's default intra-op threads and with one
thread, and prints the median milliseconds per step.

`... --json --threads 1|default --workload W` is what the suite runs: one workload, one
thread setting, in a process of its own (so its peak RSS is that engine's), one JSON object.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from benchmarks.common import (
    current_rss_kib,
    emit,
    engine_origin,
    median,
    multi_threaded_work,
    peak_rss_kib,
    time_steps,
)

W6 = {"batch": 32, "n_embd": 10, "block": 3, "hidden": 200, "vocab": 27, "lr": 0.1,
      "examples": 4000}
W7 = {"n_embd": 64, "n_head": 4, "n_layer": 4, "block": 32, "batch": 16, "vocab": 65,
      "lr": 1e-3, "text": 20000, "dropout": 0.0}
# the lecture's gpt.py at its published size (its hyperparameters block, lr 3e-4)
W8 = {"n_embd": 384, "n_head": 6, "n_layer": 6, "block": 256, "batch": 64, "vocab": 65,
      "lr": 3e-4, "text": 100000, "dropout": 0.2}
N_BATCHES = 64  # batches drawn up front and cycled, so timing excludes data preparation


def _tensor(torch: ModuleType, array: np.ndarray, requires_grad: bool = False) -> Any:
    """An engine tensor holding a private copy of `array` (dtype kept: float32 or int64)."""
    t = torch.from_numpy(np.ascontiguousarray(array).copy())
    if requires_grad:
        t.requires_grad = True
    return t


# --- W6 -----------------------------------------------------------------------------------

def w6_weights(seed: int = 0) -> dict[str, np.ndarray]:
    """W6's initial parameters, scaled as in makemore part 3 (kaiming tanh gain, small out)."""
    rng = np.random.default_rng(seed)
    c = W6
    fan_in = c["n_embd"] * c["block"]
    f32 = np.float32
    return {
        "C": rng.standard_normal((c["vocab"], c["n_embd"])).astype(f32),
        "W1": (rng.standard_normal((fan_in, c["hidden"])) * (5 / 3) / fan_in**0.5).astype(f32),
        "b1": (rng.standard_normal(c["hidden"]) * 0.01).astype(f32),
        "W2": (rng.standard_normal((c["hidden"], c["vocab"])) * 0.01).astype(f32),
        "b2": np.zeros(c["vocab"], dtype=f32),
        "bngain": np.ones((1, c["hidden"]), dtype=f32),
        "bnbias": np.zeros((1, c["hidden"]), dtype=f32),
    }


def w6_batches(seed: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """N_BATCHES (contexts, next characters) of int64: random characters, fixed seed."""
    rng = np.random.default_rng(seed)
    c = W6
    X = rng.integers(0, c["vocab"], size=(c["examples"], c["block"]), dtype=np.int64)
    Y = rng.integers(0, c["vocab"], size=c["examples"], dtype=np.int64)
    picks = rng.integers(0, c["examples"], size=(N_BATCHES, c["batch"]))
    return [(X[ix], Y[ix]) for ix in picks]


def w6_step(torch_module: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """Build W6 on `torch_module`; return step(k): one training step on batch k, its loss."""
    torch = torch_module
    F = torch.nn.functional
    weights = w6_weights(seed)
    p = {name: _tensor(torch, array, requires_grad=True) for name, array in weights.items()}
    parameters = list(p.values())
    batches = [(_tensor(torch, x), _tensor(torch, y)) for x, y in w6_batches(seed + 1)]
    running = {"mean": torch.zeros((1, W6["hidden"])), "std": torch.ones((1, W6["hidden"]))}
    lr = W6["lr"]

    def step(k: int) -> float:
        Xb, Yb = batches[k % len(batches)]
        emb = p["C"][Xb]  # (32, 3, 10)
        embcat = emb.view(emb.shape[0], -1)  # (32, 30)
        hpreact = embcat @ p["W1"] + p["b1"]
        bnmeani = hpreact.mean(0, keepdim=True)
        bnvari = hpreact.var(0, keepdim=True)
        hpreact = p["bngain"] * (hpreact - bnmeani) / torch.sqrt(bnvari + 1e-5) + p["bnbias"]
        with torch.no_grad():
            running["mean"] = 0.999 * running["mean"] + 0.001 * bnmeani
            running["std"] = 0.999 * running["std"] + 0.001 * bnvari.sqrt()
        h = torch.tanh(hpreact)
        logits = h @ p["W2"] + p["b2"]
        loss = F.cross_entropy(logits, Yb)
        for param in parameters:
            param.grad = None
        loss.backward()
        for param in parameters:
            param.data += -lr * param.grad
        return loss.item()

    return step


# --- W7 -----------------------------------------------------------------------------------

def gpt_model_class(torch: ModuleType, c: dict) -> type:
    """The GPT lecture's model at the sizes of `c`, its modules subclassing `torch.nn.Module`
    of this engine."""
    nn = torch.nn
    F = torch.nn.functional
    n_embd, block_size = c["n_embd"], c["block"]
    dropout = c["dropout"]

    class Head(nn.Module):
        def __init__(self, head_size: int):
            super().__init__()
            self.key = nn.Linear(n_embd, head_size, bias=False)
            self.query = nn.Linear(n_embd, head_size, bias=False)
            self.value = nn.Linear(n_embd, head_size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: Any) -> Any:
            _, T, _ = x.shape
            k = self.key(x)
            q = self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            wei = self.dropout(F.softmax(wei, dim=-1))
            return wei @ self.value(x)

    class MultiHeadAttention(nn.Module):
        def __init__(self, num_heads: int, head_size: int):
            super().__init__()
            self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
            self.proj = nn.Linear(head_size * num_heads, n_embd)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: Any) -> Any:
            out = torch.cat([h(x) for h in self.heads], dim=-1)
            return self.dropout(self.proj(out))

    class FeedForward(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd), nn.ReLU(),
                nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout),
            )

        def forward(self, x: Any) -> Any:
            return self.net(x)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sa = MultiHeadAttention(c["n_head"], n_embd // c["n_head"])
            self.ffwd = FeedForward()
            self.ln1 = nn.LayerNorm(n_embd)
            self.ln2 = nn.LayerNorm(n_embd)

        def forward(self, x: Any) -> Any:
            x = x + self.sa(self.ln1(x))
            return x + self.ffwd(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.token_embedding_table = nn.Embedding(c["vocab"], n_embd)
            self.position_embedding_table = nn.Embedding(block_size, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(c["n_layer"])])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, c["vocab"])

        def forward(self, idx: Any, targets: Any) -> Any:
            B, T = idx.shape
            x = self.token_embedding_table(idx) + self.position_embedding_table(torch.arange(T))
            logits = self.lm_head(self.ln_f(self.blocks(x)))
            return F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))

    return GPT


def gpt_weight(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """One GPT parameter: normal(0, 0.02) matrices, zero biases, unit LayerNorm gains."""
    if name.endswith("bias"):
        return np.zeros(shape, dtype=np.float32)
    if len(shape) == 1:  # a LayerNorm weight
        return np.ones(shape, dtype=np.float32)
    return (rng.standard_normal(shape) * 0.02).astype(np.float32)


def token_batches(c: dict, seed: int = 1, count: int = N_BATCHES
                  ) -> list[tuple[np.ndarray, np.ndarray]]:
    """`count` (inputs, targets) int64 windows of a random token stream, fixed seed."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, c["vocab"], size=c["text"], dtype=np.int64)
    starts = rng.integers(0, c["text"] - c["block"] - 1, size=(count, c["batch"]))
    return [(np.stack([data[i:i + c["block"]] for i in ix]),
             np.stack([data[i + 1:i + c["block"] + 1] for i in ix])) for ix in starts]


def load_weights(torch: ModuleType, model: Any, seed: int,
                 weight: Callable[[str, tuple[int, ...], np.random.Generator], np.ndarray]
                 ) -> None:
    """Replace every parameter of `model` by numpy-drawn weights (buffers kept)."""
    rng = np.random.default_rng(seed)
    state = model.state_dict()  # keeps the tril buffers; parameters replaced below
    for name, param in model.named_parameters():  # registration order: same in both engines
        state[name] = _tensor(torch, weight(name, tuple(param.shape), rng))
    model.load_state_dict(state)


def eval_loss(torch: ModuleType, model: Any, batch: tuple[Any, Any], rows: int = 8) -> float:
    """The loss of the first `rows` sequences of `batch` in eval mode without gradients:
    with dropout on, two engines' training losses differ by their random masks, this one
    compares the models (a few rows: at W8's size a full forward is seconds)."""
    model.eval()
    with torch.no_grad():
        out = model(batch[0][:rows], batch[1][:rows])
    model.train()
    loss = out[1] if isinstance(out, tuple) else out
    return float(loss.item())


def lecture_gpt_step(torch_module: ModuleType, c: dict, seed: int = 0,
                     batches: int = N_BATCHES) -> Callable[[int], float]:
    """Build the lecture's GPT at sizes `c` on `torch_module`; return step(k): one AdamW
    step on batch k, its loss. step.check_loss is batch 0's eval-mode loss before training."""
    torch = torch_module
    model = gpt_model_class(torch, c)()
    load_weights(torch, model, seed, gpt_weight)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=c["lr"])
    data = [(_tensor(torch, x), _tensor(torch, y)) for x, y in token_batches(c, seed + 1, batches)]
    check = eval_loss(torch, model, data[0])

    def step(k: int) -> float:
        xb, yb = data[k % len(data)]
        loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss.item()

    step.check_loss = check  # type: ignore[attr-defined]
    return step


def w7_step(torch_module: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """W7: the lecture's GPT, shrunk (see W7)."""
    return lecture_gpt_step(torch_module, W7, seed)


def w8_step(torch_module: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """W8: the lecture's GPT at its published size (see W8); 4 batches (25 MB of tokens
    each would be wasted: a run times a few steps)."""
    return lecture_gpt_step(torch_module, W8, seed, batches=4)


def lecture_gpt_matmul_flops(c: dict) -> float:
    """Floating-point operations of one training step's matrix products (forward and
    backward, 2 per multiply-add; a product's backward is two products of its size)."""
    tokens = c["batch"] * c["block"]
    d, layers, T = c["n_embd"], c["n_layer"], c["block"]
    weights = layers * (4 * d * d + 2 * d * 4 * d) + d * c["vocab"]  # qkv+proj, ffwd; lm_head
    attention = layers * 2 * (c["batch"] * T * T * d)  # q @ k^T and wei @ v, over all heads
    return 6.0 * (tokens * weights + attention)


# --- timing -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Workload:
    """A training step to time: how to build it, how many steps to warm up and to time
    by default, and the flops of its matrix products per step (None: not counted)."""

    build: Callable[[ModuleType], Callable[[int], float]]
    warmup: int
    steps: int
    matmul_flops: float | None


def _workloads() -> dict[str, Workload]:
    from benchmarks import nanogpt_steps, tiny_steps

    return {
        "W6": Workload(w6_step, 3, 300, 6.0 * W6["batch"] * W6["hidden"]
                       * (W6["n_embd"] * W6["block"] + W6["vocab"])),
        "W7": Workload(w7_step, 3, 30, lecture_gpt_matmul_flops(W7)),
        "W8": Workload(w8_step, 1, 1, lecture_gpt_matmul_flops(W8)),
        "W9": Workload(nanogpt_steps.w9_step, 3, 30,
                       nanogpt_steps.nanogpt_matmul_flops(nanogpt_steps.W9)),
        "W10-linear": Workload(tiny_steps.w10_linear, 50, 3000, tiny_steps.tiny_matmul_flops(None)),
        "W10-mlp": Workload(tiny_steps.w10_mlp, 50, 3000,
                            tiny_steps.tiny_matmul_flops(tiny_steps.TINY["hidden"])),
        "W10-poly": Workload(tiny_steps.w10_poly, 50, 3000, None),
    }


WORKLOADS = _workloads()


def time_workload(torch: ModuleType, name: str, steps: int | None = None) -> dict:
    """Median seconds per step over `steps` steps after the workload's warm-up, the first
    losses, and (where the workload has one) the eval-mode check loss from before training."""
    workload = WORKLOADS[name]
    steps = steps or workload.steps
    step = workload.build(torch)
    losses = [step(k) for k in range(workload.warmup)]
    seconds = time_steps(lambda k: step(workload.warmup + k), steps)
    result = {"median_s": median(seconds), "first_losses": losses, "seconds": seconds,
              "matmul_flops": workload.matmul_flops}
    if hasattr(step, "check_loss"):
        result["check_loss"] = step.check_loss
    return result


def run_one(engine: str, threads: str, name: str, steps: int | None) -> dict:
    """The suite's measurement: one workload at one thread setting, as a JSON-ready dict.

    Peak RSS is this process's high-water mark, imports included (a user pays for them).
    """
    torch = load_engine(engine)
    if threads == "1":
        torch.set_num_threads(1)
    rss_after_import = current_rss_kib()
    result = time_workload(torch, name, steps)
    result.update(engine=engine, workload=name, threads_asked=threads,
                  threads=torch.get_num_threads(), steps=len(result["seconds"]),
                  rss_after_import_kib=rss_after_import, peak_rss_kib=peak_rss_kib())
    if engine == "micrograd":
        result["origin"] = engine_origin()
        result["multi_threaded_work"] = multi_threaded_work()
    return result


def load_engine(name: str) -> ModuleType:
    """`torch` or `micrograd.torch`, with a one-line message when it is not installed."""
    module = "torch" if name == "torch" else "micrograd.torch"
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise SystemExit(f"{module} is not importable ({error}); "
                         "run from the repository root with PYTHONPATH=src") from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("torch", "micrograd"), default="torch")
    parser.add_argument("--steps", type=int, default=None,
                        help="timed steps per configuration (default: the workload's)")
    parser.add_argument("--workload", choices=(*WORKLOADS, "all"), default="all")
    parser.add_argument("--json", action="store_true",
                        help="one workload, one thread setting, one JSON object (the suite's)")
    parser.add_argument("--threads", choices=("1", "default"), default="default",
                        help="with --json: one intra-op thread, or the engine's default")
    args = parser.parse_args(argv)
    if args.steps is not None and args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    if args.json:
        if args.workload == "all":
            parser.error("--json measures one workload: give --workload "
                         + " or ".join(WORKLOADS))
        emit(run_one(args.engine, args.threads, args.workload, args.steps))
        return
    torch = load_engine(args.engine)
    names = list(WORKLOADS) if args.workload == "all" else [args.workload]
    configurations = [("default", None), ("1", 1)]
    for threads_label, threads in configurations:
        if threads is not None and hasattr(torch, "set_num_threads"):
            torch.set_num_threads(threads)
        actual = torch.get_num_threads() if hasattr(torch, "get_num_threads") else threads_label
        for name in names:
            result = time_workload(torch, name, args.steps)
            losses = " ".join(repr(x) for x in result["first_losses"][:3])
            print(f"{name} engine={args.engine} threads={threads_label} ({actual}) "
                  f"median_ms={result['median_s'] * 1e3:.3f} first_losses={losses}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
