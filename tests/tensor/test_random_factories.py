"""The Tensor-level random factories and fills draw torch 2.13's numbers, bit for bit:
the same script of seeded, interleaved calls runs on torch and on micrograd.tensors and
every result must be equal (np.array_equal), and so must the generator states after it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.tensors as T
from micrograd.tensors import functional as F

torch = require_module("torch")


def lecture_script(m, dtype_name):
    """A makemore-style sequence of calls, written once for both modules."""
    dtype = getattr(m, dtype_name)
    g = m.Generator().manual_seed(2147483647)
    out = [m.randn((27, 10), generator=g, dtype=dtype), m.rand(5, generator=g, dtype=dtype),
           m.randn(3, generator=g, dtype=dtype)]  # < 16 elements: the scalar path
    p = m.rand(27, generator=g, dtype=dtype)
    p = p / p.sum()
    out += [m.multinomial(p, 10, replacement=True, generator=g),
            m.multinomial(p, 5, replacement=False, generator=g),
            p.multinomial(1, generator=g),
            m.randint(0, 27, (32,), generator=g), m.randint(10, (2, 3), generator=g),
            m.randperm(17, generator=g),
            m.bernoulli(m.full((20,), 0.3, dtype=dtype), generator=g),
            m.normal(2.0, 3.0, size=(4, 5), generator=g, dtype=dtype),
            m.normal(m.zeros(20, dtype=dtype), m.ones(20, dtype=dtype) * 2, generator=g),
            m.normal(m.arange(20, dtype=dtype), 0.5, generator=g),
            m.empty(30, dtype=dtype).normal_(1.0, 0.02, generator=g),
            m.empty(7, dtype=dtype).uniform_(-2, 3, generator=g),
            m.empty(9, dtype=dtype).bernoulli_(0.25, generator=g),
            m.empty(11, dtype=dtype).exponential_(2.0, generator=g),
            m.empty(12, dtype=m.long).random_(3, 9, generator=g),
            m.empty(12, dtype=dtype).random_(100, generator=g),
            m.randn_like(m.zeros(4, 5, dtype=dtype), generator=g)
            if m is T else m.randn(4, 5, dtype=dtype, generator=g),
            g.get_state()]
    return out


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_seeded_generator_script_gives_torchs_numbers(dtype_name):
    ours, theirs = lecture_script(T, dtype_name), lecture_script(torch, dtype_name)
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        a = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
        assert a.dtype == b.numpy().dtype, f"call {i}"
        np.testing.assert_array_equal(a, b.numpy(), err_msg=f"call {i}")


def global_script(m):
    m.manual_seed(1337)
    out = [m.randn(4, 8), m.rand(3), m.randint(0, 5, (6,)), m.randperm(9)]
    state = m.get_rng_state()
    out.append(m.randn(20))
    m.set_rng_state(state)
    out += [m.randn(20), m.ones(40).bernoulli_(0.5), m.tensor([m.initial_seed()])]
    w = m.empty(10, 3)
    with m.no_grad():
        w.uniform_(-0.1, 0.1)
    out.append(w)
    return out


def test_global_generator_and_rng_state_follow_torch():
    previous = T.get_default_dtype()
    T.set_default_dtype(T.float32)  # torch's default: the same dtype is drawn
    try:
        ours = global_script(T)
    finally:
        T.set_default_dtype(previous)
    theirs = global_script(torch)
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=f"call {i}")
    np.testing.assert_array_equal(T.get_rng_state().numpy(), torch.get_rng_state().numpy())


def test_dropout_uses_torchs_mask():
    x = np.random.default_rng(0).standard_normal((8, 30)).astype(np.float32)
    T.manual_seed(3)
    torch.manual_seed(3)
    ours = F.dropout(T.tensor(x), 0.2, training=True)
    theirs = torch.nn.functional.dropout(torch.from_numpy(x), 0.2, training=True)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert F.dropout(T.tensor(x), 0.2, training=False).numpy() is not None
    np.testing.assert_array_equal(F.dropout(T.tensor(x), 0.5, training=False).numpy(), x)


def test_dropout_gradient_is_the_mask():
    x = T.ones(4, 40, requires_grad=True)
    out = F.dropout(x, 0.25)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad, out.data)  # d(x * mask)/dx = mask, and x = 1


def test_random_factories_check_their_arguments():
    with pytest.raises(TypeError, match="randint"):
        T.randint(5)
    with pytest.raises(TypeError, match="size"):
        T.normal(0.0, 1.0)
    with pytest.raises(TypeError, match="generator"):
        T.randn(3, generator=np.random.default_rng(0))
