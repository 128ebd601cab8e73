"""GELU on float32 (its own vectorised normal CDF, not scipy's float64 erf) against torch's
float32 GELU and against the exact value in float64, over both tails."""

from __future__ import annotations

import math

import numpy as np
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch.nn import functional as F

torch = require_module("torch")


def exact_gelu(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    return x64 * 0.5 * np.array([math.erfc(-v / math.sqrt(2)) for v in x64])


def test_float32_gelu_is_as_close_to_the_exact_value_as_torchs():
    x = np.concatenate([np.linspace(-9, 9, 20001), [-1e-3, 1e-3, 0.0]]).astype(np.float32)
    ours = F.gelu(mt.tensor(x)).numpy()
    theirs = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    exact = exact_gelu(x)
    big = np.abs(exact) > 1e-30
    our_error = np.abs(ours[big] - exact[big]) / np.abs(exact[big])
    torch_error = np.abs(theirs[big] - exact[big]) / np.abs(exact[big])
    assert ours.dtype == np.float32
    body = np.abs(x[big]) < 5  # float32 rounding of x^2 in the exponent dominates beyond
    assert our_error[body].max() < 5e-6  # a few dozen float32 ulps at worst
    assert our_error.max() < max(2e-5, 2 * torch_error.max())
    # torch computes x (1 + erf(x / sqrt 2)) / 2: for x < -4 the sum cancels and its values
    # are off by up to ~1e-6 absolutely (ours are the exact ones there, checked above)
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)


def test_float32_gelu_gradient_matches_torch():
    x = np.linspace(-6, 6, 1001).astype(np.float32)
    xo, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.gelu(xo).sum().backward()
    torch.nn.functional.gelu(xt).sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
