"""benchmarks/torch_steps.py: W6 and W7 take the steps they describe, on real torch.

Oracles: W6's first loss recomputed in numpy (float64) from the same weights and batch;
W7's first loss is log(65) for 0.02-std weights (near-uniform predictions), its parameter
count is worked out from the sizes, and repeating one batch must lower its loss.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import require_module

pytestmark = pytest.mark.slow  # training runs under torch and micrograd

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def steps(monkeypatch) -> ModuleType:
    """benchmarks.torch_steps (benchmarks/ sits beside src/, not in it)."""
    monkeypatch.syspath_prepend(str(ROOT))
    return importlib.import_module("benchmarks.torch_steps")


def test_w6_first_loss_matches_numpy(steps):
    torch = require_module("torch")
    w = {k: v.astype(np.float64) for k, v in steps.w6_weights(0).items()}
    X, Y = steps.w6_batches(1)[0]
    embcat = w["C"][X].reshape(len(X), -1)
    hpre = embcat @ w["W1"] + w["b1"]
    hpre = w["bngain"] * (hpre - hpre.mean(0)) / np.sqrt(hpre.var(0, ddof=1) + 1e-5) + w["bnbias"]
    logits = np.tanh(hpre) @ w["W2"] + w["b2"]
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    expected = -logp[np.arange(len(Y)), Y].mean()

    step = steps.w6_step(torch)
    assert step(0) == pytest.approx(expected, rel=1e-5)
    assert steps.W6["batch"] == len(Y) == 32


def test_w6_builds_identically_and_learns_a_repeated_batch(steps):
    torch = require_module("torch")
    first, second = steps.w6_step(torch), steps.w6_step(torch)
    losses = [first(0) for _ in range(5)]
    assert losses == [second(0) for _ in range(5)]
    assert losses[-1] < losses[0]


@pytest.mark.slow
def test_w7_starts_uniform_and_learns_a_repeated_batch(steps):
    torch = require_module("torch")
    c = steps.W7
    e, v = c["n_embd"], c["vocab"]
    per_layer = 3 * e * e + (e * e + e) + (4 * e * e + 4 * e) + (4 * e * e + e) + 4 * e
    expected = v * e + c["block"] * e + c["n_layer"] * per_layer + 2 * e + e * v + v
    model = steps.gpt_model_class(torch, c)()
    assert sum(p.numel() for p in model.parameters()) == expected

    step = steps.w7_step(torch)
    losses = [step(0) for _ in range(4)]
    assert losses[0] == pytest.approx(math.log(v), abs=0.05)
    assert losses[-1] < losses[0]
