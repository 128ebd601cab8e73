"""W2 and W3: training steps on our Tensor engine or on PyTorch, same data, same weights.

Run as `python -m benchmarks.tensor_workloads ENGINE THREADS QUICK` with ENGINE `micrograd`
or `torch`, THREADS `1` or `default` (PyTorch's intra-op threads, or the threads of numpy's
BLAS for our engine) and QUICK `0`/`1`. Prints one JSON object.

W2: the moons demo problem (MLP 2-16-16-1, ReLU, hinge + 1e-4 L2, full batch of 100,
    SGD with the demo's learning-rate decay), float64, starting from the notebook's
    initial weights (random.seed(1337)), so its losses can be compared with W1's.
W3: scikit-learn's digits, MLP 64-128-10, ReLU, cross-entropy, SGD, float32, batch 32,
    128 and 1,797 (all images).
Each configuration: a warm-up, then `repeats` blocks of `steps` steps; seconds per step is
the median over the blocks.
"""

from __future__ import annotations

import random
import sys
import time
import traceback

import numpy as np

from benchmarks.common import emit, median, multi_threaded_work, peak_rss_kib, reset_peak_rss

W3_BATCHES = (32, 128, 1797)


# --- one thin adapter per engine: build a model from numpy weights, take an SGD step -----

class TorchEngine:
    name = "torch"

    def __init__(self, threads: str):
        import torch

        self.torch = torch
        if threads == "1":
            torch.set_num_threads(1)
        self.threads = torch.get_num_threads()

    def tensor(self, array, dtype=None):
        return self.torch.from_numpy(np.ascontiguousarray(array))

    def mlp(self, weights: list[tuple[np.ndarray, np.ndarray]]):
        torch = self.torch
        layers = []
        for i, (w, b) in enumerate(weights):
            linear = torch.nn.Linear(w.shape[1], w.shape[0], dtype=self.torch.from_numpy(w).dtype)
            with torch.no_grad():
                linear.weight.copy_(torch.from_numpy(w))
                linear.bias.copy_(torch.from_numpy(b))
            layers.append(linear)
            if i < len(weights) - 1:
                layers.append(torch.nn.ReLU())
        return torch.nn.Sequential(*layers)

    def cross_entropy(self, logits, targets):
        return self.torch.nn.functional.cross_entropy(logits, targets)

    def optimizer(self, params, lr: float):
        return self.torch.optim.SGD(params, lr=lr)

    def set_lr(self, opt, lr: float) -> None:
        for group in opt.param_groups:
            group["lr"] = lr


class MicrogradEngine:
    name = "micrograd"

    def __init__(self, threads: str):
        import micrograd
        from micrograd import tensors
        from micrograd.tensors import functional, nn

        # The tuning a training script asks for explicitly (it changes the process's malloc,
        # so micrograd no longer does it on import): see docs/tensors.md.
        tensors.keep_freed_memory()
        self.micrograd = micrograd
        self.nn = nn
        self.functional = functional
        if threads == "1":  # numpy's BLAS on one thread, as torch.set_num_threads(1)
            if hasattr(tensors, "set_num_threads"):
                tensors.set_num_threads(1)
            else:
                from threadpoolctl import threadpool_limits

                self._limits = threadpool_limits(1)  # kept alive: the limit lasts while it does
        self.threads = _blas_threads()
        try:
            from micrograd import optim

            self.optim = optim
        except ImportError:
            self.optim = None

    def tensor(self, array, dtype=None):
        return self.micrograd.tensor(np.ascontiguousarray(array))

    def mlp(self, weights: list[tuple[np.ndarray, np.ndarray]]):
        nn = self.nn
        layers = []
        for i, (w, b) in enumerate(weights):
            try:
                linear = nn.Linear(w.shape[1], w.shape[0], dtype=w.dtype)
            except TypeError:  # a Linear without dtype=: _load sets the dtype anyway
                linear = nn.Linear(w.shape[1], w.shape[0])
            _load(linear.weight, w)
            _load(linear.bias, b)
            layers.append(linear)
            if i < len(weights) - 1:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers)

    def cross_entropy(self, logits, targets):
        return self.functional.cross_entropy(logits, targets)

    def optimizer(self, params, lr: float):
        if self.optim is not None and hasattr(self.optim, "SGD"):
            return self.optim.SGD(list(params), lr=lr)
        return _PlainSGD(list(params), lr)

    def set_lr(self, opt, lr: float) -> None:
        opt.lr = lr


def _blas_threads() -> int | str:
    """How many threads numpy's BLAS uses now (threadpoolctl), or 'default' if unknown."""
    try:
        from threadpoolctl import threadpool_info

        counts = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
        return max(counts) if counts else "default"
    except ImportError:
        return "default"


def _load(param, array: np.ndarray) -> None:
    """Copy numpy weights (and their dtype) into one of our parameters, whatever its layout."""
    data = param.data
    if data.shape == array.shape:
        param.data = np.array(array, copy=True)
    elif data.shape == array.T.shape:  # a Linear that stores (in, out)
        param.data = np.ascontiguousarray(array.T)
    else:
        raise ValueError(f"cannot load weights of shape {array.shape} into {data.shape}")


class _PlainSGD:
    """p.data -= lr * p.grad; used only if micrograd.optim is missing."""

    def __init__(self, params, lr):
        self.params, self.lr = params, lr

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        for p in self.params:
            if p.grad is not None:
                p.data -= self.lr * p.grad


# --- the workloads --------------------------------------------------------------------

def notebook_weights() -> list[tuple[np.ndarray, np.ndarray]]:
    """The moons notebook's initial MLP(2, [16, 16, 1]) weights (random.seed(1337)), as arrays.

    micrograd draws each neuron's weights with random.uniform(-1, 1), neuron by neuron,
    layer by layer, biases 0 -- drawn here the same way, without importing either engine.
    """
    rng = random.Random(1337)
    weights = []
    for nin, nout in ((2, 16), (16, 16), (16, 1)):
        w = np.array([[rng.uniform(-1, 1) for _ in range(nin)] for _ in range(nout)])
        weights.append((w, np.zeros(nout)))
    return weights


def moons_data():
    from sklearn.datasets import make_moons

    np.random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    return X.astype(np.float64), (y * 2 - 1).astype(np.float64).reshape(-1, 1)


def w2_moons(engine, steps: int, repeats: int) -> dict:
    X_np, y_np = moons_data()
    X, y = engine.tensor(X_np), engine.tensor(y_np)

    def train(n: int) -> tuple[list[float], float]:
        model = engine.mlp(notebook_weights())
        params = list(model.parameters())
        opt = engine.optimizer(params, 1.0)
        losses = []
        t0 = time.perf_counter()
        for k in range(n):
            scores = model(X)
            data_loss = (1 - y * scores).relu().mean()
            reg_loss = 1e-4 * sum((p * p).sum() for p in params)
            total_loss = data_loss + reg_loss
            opt.zero_grad()
            total_loss.backward()
            engine.set_lr(opt, 1.0 - 0.9 * k / 100)
            opt.step()
            losses.append(total_loss.item())
        return losses, (time.perf_counter() - t0) / n

    train(2)  # warm-up
    runs = [train(steps) for _ in range(repeats)]
    return {"losses": runs[0][0], "seconds_per_step": median([s for _, s in runs]),
            "blocks": [s for _, s in runs]}


def digits_data():
    from sklearn.datasets import load_digits

    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    perm = np.random.RandomState(0).permutation(len(y))
    return X[perm], y[perm]


def digits_weights() -> list[tuple[np.ndarray, np.ndarray]]:
    """PyTorch's default Linear init, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), from a fixed seed."""
    rng = np.random.RandomState(0)
    weights = []
    for nin, nout in ((64, 128), (128, 10)):
        bound = 1 / np.sqrt(nin)
        weights.append(
            (
                rng.uniform(-bound, bound, (nout, nin)).astype(np.float32),
                rng.uniform(-bound, bound, nout).astype(np.float32),
            )
        )
    return weights


def w3_digits(engine, batch: int, steps: int, repeats: int) -> dict:
    X_np, y_np = digits_data()
    n = len(y_np)
    starts = [(i * batch) % n for i in range(steps)]
    batches = []
    for s in starts:
        idx = np.arange(s, s + batch) % n
        batches.append((engine.tensor(X_np[idx]), engine.tensor(y_np[idx])))
    model = engine.mlp(digits_weights())
    opt = engine.optimizer(list(model.parameters()), 0.1)

    def block(count: int) -> tuple[float, float]:
        first_loss = None
        t0 = time.perf_counter()
        for i in range(count):
            xb, yb = batches[i % len(batches)]
            loss = engine.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if first_loss is None:
                first_loss = loss.item()
        return first_loss, (time.perf_counter() - t0) / count

    first_loss, _ = block(3)  # warm-up; its first loss is from the shared initial weights
    blocks = [block(steps)[1] for _ in range(repeats)]
    return {"batch": batch, "first_loss": first_loss, "seconds_per_step": median(blocks),
            "blocks": blocks}


def main(argv: list[str]) -> dict:
    engine_name, threads, quick = argv[0], argv[1], argv[2] == "1"
    try:
        engine = (TorchEngine if engine_name == "torch" else MicrogradEngine)(threads)
    except ImportError as error:
        missing = "micrograd.tensors" if engine_name == "micrograd" else engine_name
        return {"engine": engine_name, "available": False,
                "reason": f"{missing} is missing", "detail": str(error)}
    result: dict = {"engine": engine_name, "available": True, "threads": engine.threads}
    if engine_name == "micrograd":
        import micrograd

        result["origin"] = micrograd.__file__
    for key, run in (
        ("w2", lambda: w2_moons(engine, 5 if quick else 100, 1 if quick else 5)),
        *(
            (f"w3_{b}", (lambda b=b: w3_digits(engine, b, 3 if quick else (40 if b > 1000 else 200),
                                                1 if quick else 5)))
            for b in W3_BATCHES
        ),
    ):
        separate_peak = reset_peak_rss()  # each workload's own peak RSS, imports included
        work_before = multi_threaded_work() if engine_name == "micrograd" else None
        try:
            result[key] = run()
            if separate_peak:
                result[key]["peak_rss_kib"] = peak_rss_kib()
            if work_before is not None:
                result[key]["multi_threaded_work"] = (multi_threaded_work() or 0) - work_before
        except Exception as error:  # an engine that lacks an op: say which, run the rest
            result[key] = {"error": f"{type(error).__name__}: {error}",
                           "traceback": traceback.format_exc(limit=3)}
    return result


if __name__ == "__main__":
    emit(main(sys.argv[1:]))
