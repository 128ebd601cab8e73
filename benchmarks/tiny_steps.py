"""W10: tiny tensors, where a step is a few microseconds of arithmetic and the rest is the
per-op cost of the library. Written once against the torch API, as torch_steps.py.

W10-linear  linear regression, batch 32 x 4 features: nn.Linear(4, 1), MSE, SGD
W10-mlp     the same data through Linear(4, 16), ReLU, Linear(16, 1)
W10-poly    PyTorch's polynomial tutorial ("Learning PyTorch with Examples", autograd
            version): y = sin(x) on 2,000 points of [-pi, pi], fitted by a + b x + c x^2 +
            d x^3 with four scalar parameters, summed squared error, and the update written
            out as `with torch.no_grad(): a -= lr * a.grad`, then `a.grad = None`.
All float32 (torch's default), from weights and data drawn in numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import numpy as np

TINY = {"batch": 32, "features": 4, "hidden": 16, "lr": 0.01, "batches": 16}
POLY = {"points": 2000, "lr": 1e-6}


def _regression_data(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal((TINY["features"], 1)).astype(np.float32)
    out = []
    for _ in range(TINY["batches"]):
        x = rng.standard_normal((TINY["batch"], TINY["features"])).astype(np.float32)
        noise = 0.1 * rng.standard_normal((TINY["batch"], 1)).astype(np.float32)
        out.append((x, (x @ true_w + noise).astype(np.float32)))
    return out


def _regression_step(torch: ModuleType, model: object, seed: int) -> Callable[[int], float]:
    from benchmarks.torch_steps import _tensor, load_weights

    def weight(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        fan_in = shape[-1] if len(shape) == 2 else TINY["features"]
        bound = 1 / math.sqrt(fan_in)  # nn.Linear's default range
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    load_weights(torch, model, seed, weight)
    data = [(_tensor(torch, x), _tensor(torch, y)) for x, y in _regression_data(seed + 1)]
    loss_fn = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=TINY["lr"])  # type: ignore[attr-defined]
    with torch.no_grad():
        check = float(loss_fn(model(data[0][0]), data[0][1]).item())  # type: ignore[operator]

    def step(k: int) -> float:
        xb, yb = data[k % len(data)]
        loss = loss_fn(model(xb), yb)  # type: ignore[operator]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    step.check_loss = check  # type: ignore[attr-defined]
    return step


def w10_linear(torch: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """W10-linear: one Linear(4, 1), MSE, SGD at batch 32."""
    return _regression_step(torch, torch.nn.Linear(TINY["features"], 1), seed)


def w10_mlp(torch: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """W10-mlp: Linear(4, 16), ReLU, Linear(16, 1), MSE, SGD at batch 32."""
    nn = torch.nn
    model = nn.Sequential(nn.Linear(TINY["features"], TINY["hidden"]), nn.ReLU(),
                          nn.Linear(TINY["hidden"], 1))
    return _regression_step(torch, model, seed)


def w10_poly(torch: ModuleType, seed: int = 0) -> Callable[[int], float]:
    """W10-poly: the tutorial's third-order polynomial with four scalar parameters."""
    from benchmarks.torch_steps import _tensor

    x_np = np.linspace(-math.pi, math.pi, POLY["points"], dtype=np.float32)
    x = _tensor(torch, x_np)
    y = _tensor(torch, np.sin(x_np))
    rng = np.random.default_rng(seed)
    a, b, c, d = (_tensor(torch, np.float32(rng.standard_normal()), requires_grad=True)
                  for _ in range(4))
    lr = POLY["lr"]
    with torch.no_grad():
        check = float((a + b * x + c * x ** 2 + d * x ** 3 - y).pow(2).sum().item())

    def step(k: int) -> float:
        nonlocal a, b, c, d  # `a -= ...` rebinds the name (to the same tensor, in place)
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            a -= lr * a.grad
            b -= lr * b.grad
            c -= lr * c.grad
            d -= lr * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
        return loss.item()

    step.check_loss = check  # type: ignore[attr-defined]
    return step


def tiny_matmul_flops(hidden: int | None) -> float:
    """Matrix-product flops of a regression step (forward and both backward products)."""
    n, f = TINY["batch"], TINY["features"]
    if hidden is None:  # the input needs no gradient: forward and the weight's gradient
        return 4.0 * n * f
    return 4.0 * n * f * hidden + 6.0 * n * hidden
