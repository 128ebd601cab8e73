"""linspace, arange and logspace equal torch's values bit for bit (float32 and float64),
over thousands of ranges and sizes; torch 2.13 itself is the oracle."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import SRC, require_module

import micrograd.torch as mt

torch = require_module("torch")

DTYPES = ["float32", "float64"]
SIZES = [2, 3, 4, 5, 7, 8, 9, 10, 11, 15, 16, 17, 31, 32, 33, 50, 100, 101, 1000, 1001, 4099]


def _ranges(seed: int, count: int) -> list[tuple[float, float, int]]:
    rng = random.Random(seed)
    cases = [(0.0, 1.0, n) for n in SIZES] + [(-1.0, 1.0, n) for n in SIZES]
    cases += [(-3.0, 3.0, 300), (0.0, 10.0, 51), (1.0, 1.0, 5), (5.0, -5.0, 11), (0, 10, 6)]
    for _ in range(count):
        a = rng.uniform(-1, 1) * 10 ** rng.randint(-6, 6)
        b = rng.uniform(-1, 1) * 10 ** rng.randint(-6, 6)
        cases.append((a, b, rng.choice(SIZES)))
    return cases


def assert_same_bits(ours, theirs):
    x, y = np.asarray(ours.numpy()), theirs.numpy()
    assert x.dtype == y.dtype and x.shape == y.shape
    differ = ~((x == y) | (np.isnan(x) & np.isnan(y)))
    assert not differ.any(), (f"{differ.sum()} of {x.size} values differ, first at "
                              f"{np.argmax(differ)}: ours {x[differ][:3]}, torch {y[differ][:3]}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_bit_for_bit(dtype):
    for a, b, n in _ranges(1, 800):
        assert_same_bits(mt.linspace(a, b, n, dtype=getattr(mt, dtype)),
                         torch.linspace(a, b, n, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_logspace_bit_for_bit(dtype):
    for base in (10.0, 2.0, 2.718281828459045, 0.5):
        for a, b, n in _ranges(2, 200):
            a, b = a / 1e5 if abs(a) > 40 else a, b / 1e5 if abs(b) > 40 else b
            assert_same_bits(mt.logspace(a, b, n, base=base, dtype=getattr(mt, dtype)),
                             torch.logspace(a, b, n, base=base, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_arange_bit_for_bit(dtype):
    rng = random.Random(3)
    for a, b, _ in _ranges(3, 800):
        step = (b - a) / rng.choice([1, 3, 7, 10, 16, 33, 100, 1000, 5000]) or 1.0
        assert_same_bits(mt.arange(a, b, step, dtype=getattr(mt, dtype)),
                         torch.arange(a, b, step, dtype=getattr(torch, dtype)))


def test_arange_everyday_forms():
    """The forms scripts write: default dtypes (int64 for ints, float32 for a float)."""
    for args in [(10,), (2, 10), (0, 1, 0.1), (-1, 1, 0.01), (0.5, 7), (10, 0, -3),
                 (0, 5, 0.25), (-5.0, 5.0, 0.1), (0, 2 * 3.141592653589793, 0.01), (3, 3)]:
        assert_same_bits(mt.arange(*args), torch.arange(*args))
    assert_same_bits(mt.linspace(-3, 3, 100), torch.linspace(-3, 3, 100))
    assert_same_bits(mt.linspace(0, 10, 5, dtype=mt.int64), torch.linspace(0, 10, 5,
                                                                            dtype=torch.int64))
    for n in (0, 1):
        assert_same_bits(mt.linspace(2.5, 3, n), torch.linspace(2.5, 3, n))
        assert_same_bits(mt.logspace(0.3, 3, n), torch.logspace(0.3, 3, n))


def test_long_arange_with_one_thread():
    """Past 32,768 elements torch splits the work over its threads (each chunk with its own
    vector alignment); with one thread the values are ours."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert_same_bits(mt.arange(-7.3, 1e5, 0.77), torch.arange(-7.3, 1e5, 0.77))
        assert_same_bits(mt.arange(0.1, 5e4, 0.3, dtype=mt.float64),
                         torch.arange(0.1, 5e4, 0.3, dtype=torch.float64))
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("args", [(0, 1, 0), (1, 0, 1), (0, 1, -1), (0.0, float("inf"), 1.0)])
def test_arange_refuses_what_torch_refuses(args):
    with pytest.raises(RuntimeError):
        torch.arange(*args)
    with pytest.raises(RuntimeError, match="arange"):
        mt.arange(*args)


@pytest.mark.parametrize("text", [
    "torch.eye(4)", "torch.eye(3, 5, dtype=torch.float64)", "torch.full((2, 3), 0.1)",
    "torch.full((2, 2), 1 / 3, dtype=torch.float64)", "torch.full((3,), 7)",
    "torch.ones(2, 3).tril()", "torch.ones(4, 4).triu(1)", "torch.ones(3, 3).tril(-1)",
    "torch.zeros(2, 2)", "torch.ones(5, dtype=torch.int64)", "torch.arange(12).view(3, 4)",
    "torch.linspace(0, 1, 7).view(7, 1) * torch.arange(3)",
])
def test_other_deterministic_factories(text):
    assert_same_bits(eval(text, {"torch": mt}), eval(text, {"torch": torch}))


def test_torchs_plain_build_is_followed_too():
    """With ATEN_CPU_CAPABILITY=default torch runs its kernels built without FMA; so do we."""
    script = (
        "import random, numpy as np, torch, micrograd.torch as mt\n"
        "assert torch.backends.cpu.get_cpu_capability() == 'DEFAULT'\n"
        "random.seed(1)\n"
        "for _ in range(200):\n"
        "    a, b = random.uniform(-100, 100), random.uniform(-100, 100)\n"
        "    n = random.choice([7, 11, 50, 101])\n"
        "    for dt in ('float32', 'float64'):\n"
        "        assert np.array_equal(torch.linspace(a, b, n, dtype=getattr(torch, dt)).numpy(),"
        " mt.linspace(a, b, n, dtype=getattr(mt, dt)).numpy())\n"
        "        s = (b - a) / random.choice([7, 33, 100])\n"
        "        assert np.array_equal(torch.arange(a, b, s, dtype=getattr(torch, dt)).numpy(),"
        " mt.arange(a, b, s, dtype=getattr(mt, dt)).numpy())\n"
    )
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default", PYTHONPATH=str(SRC))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
