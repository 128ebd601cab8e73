"""micrograd.tensors.random draws torch 2.13's CPU random streams, bit for bit.

The oracle is torch itself: the same seed and the same sequence of calls must give equal
arrays (np.array_equal, so equal bits up to the sign of zero) and equal generator state
bytes. Sizes run over 1..100 (both sides of the 16-element switch in normal_) and a few
large ones, both float dtypes, several seeds, explicit generators and the global one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import SRC, require_module, run_python

from micrograd.tensors import _float_emulation as float_emulation
from micrograd.tensors import random as mr

torch = require_module("torch")

SEEDS = [0, 42, 2147483647]
SIZES = list(range(1, 101)) + [1000, 4099]
DTYPES = [(np.float32, torch.float32), (np.float64, torch.float64)]
DTYPE_IDS = ["float32", "float64"]


def twin_generators(seed: int) -> tuple[mr.Generator, object]:
    return mr.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)


def assert_same(ours: np.ndarray, theirs: object, what: str) -> None:
    expected = theirs.numpy() if hasattr(theirs, "numpy") else np.asarray(theirs)
    assert ours.dtype == expected.dtype, f"{what}: dtype {ours.dtype} != {expected.dtype}"
    assert ours.shape == expected.shape, f"{what}: shape {ours.shape} != {expected.shape}"
    if not np.array_equal(ours, expected):
        first = int(np.flatnonzero(ours.ravel() != expected.ravel())[0])
        raise AssertionError(f"{what}: first difference at flat index {first}: "
                             f"{ours.ravel()[first]!r} != {expected.ravel()[first]!r}")


def assert_same_state(ours: mr.Generator, theirs: object, what: str) -> None:
    assert np.array_equal(ours.get_state(), theirs.get_state().numpy()), \
        f"{what}: generator state bytes differ"


# -- state ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 42, 2147483647, 2**32 + 7, 2**63, 2**64 - 1, -1,
                                  -(2**63), mr.DEFAULT_SEED])
def test_seeding_gives_torchs_state_bytes_and_initial_seed(seed):
    ours, theirs = twin_generators(seed)
    assert ours.initial_seed() == theirs.initial_seed()
    assert_same_state(ours, theirs, f"seed {seed}")


def test_fresh_generator_is_torchs_fresh_generator():
    ours, theirs = mr.Generator(), torch.Generator()
    assert ours.initial_seed() == theirs.initial_seed() == mr.DEFAULT_SEED
    assert_same(mr.rand(7, generator=ours), torch.rand(7, generator=theirs), "rand")


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seed_out_of_range_is_refused(seed):
    with pytest.raises(ValueError, match="seed"):
        mr.Generator().manual_seed(seed)


def test_seed_must_be_an_integer():
    with pytest.raises(TypeError, match="integer"):
        mr.Generator().manual_seed(1.5)  # type: ignore[arg-type]


def test_state_bytes_match_mid_stream_with_cached_normal():
    ours, theirs = twin_generators(3)
    for count in (1, 3, 700, 5):  # odd scalar-path counts leave a cached normal behind
        assert_same(mr.randn(count, np.float64, ours),
                    torch.randn(count, dtype=torch.float64, generator=theirs), "randn")
        assert_same_state(ours, theirs, f"after randn({count})")


def test_torch_state_loads_into_ours_and_ours_into_torch():
    _, theirs = twin_generators(11)
    torch.randn(3, generator=theirs)  # leaves a cached normal
    torch.rand(1000, generator=theirs)
    ours = mr.Generator().set_state(theirs.get_state().numpy())
    assert ours.initial_seed() == theirs.initial_seed()
    assert_same(mr.randn(5, np.float64, ours),
                torch.randn(5, dtype=torch.float64, generator=theirs), "randn after load")
    back = torch.Generator().set_state(torch.from_numpy(ours.get_state()))
    assert_same(mr.rand(50, generator=ours), torch.rand(50, generator=back), "rand")


def test_state_round_trips_through_get_and_set():
    gen = mr.Generator().manual_seed(5)
    mr.randn(3, generator=gen)
    saved = gen.get_state()
    first = mr.randn(40, generator=gen)
    gen.set_state(saved)
    assert np.array_equal(mr.randn(40, generator=gen), first)
    clone = gen.clone()
    assert np.array_equal(mr.rand(9, generator=clone), mr.rand(9, generator=gen))


@pytest.mark.parametrize("bad", [np.zeros(10, np.uint8), np.zeros(5056, np.int64),
                                 np.zeros(5056, np.uint8)])
def test_bad_state_is_refused_with_a_reason(bad):
    with pytest.raises(ValueError, match="state"):
        mr.Generator().set_state(bad)


def test_global_generator_functions_follow_torch():
    torch.manual_seed(1337)
    returned = mr.manual_seed(1337)
    assert returned is mr.default_generator
    assert mr.initial_seed() == torch.initial_seed() == 1337
    assert np.array_equal(mr.get_rng_state(), torch.get_rng_state().numpy())
    assert_same(mr.randn(20), torch.randn(20), "randn")
    assert_same(mr.randint(0, 65, (4, 8)), torch.randint(0, 65, (4, 8)), "randint")
    state = torch.get_rng_state()
    mr.set_rng_state(state.numpy())
    expected = torch.rand(33)
    assert_same(mr.rand(33), expected, "rand after set_rng_state")
    new_seed = mr.seed()
    assert mr.initial_seed() == new_seed


# -- continuous distributions ---------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_rand_and_uniform_match_torch_over_sizes(seed, ours_dtype, torch_dtype):
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        assert_same(mr.rand(n, ours_dtype, ours),
                    torch.rand(n, dtype=torch_dtype, generator=theirs), f"rand({n})")
        assert_same(mr.uniform_(np.empty(n, ours_dtype), -0.7, 2.3, ours),
                    torch.empty(n, dtype=torch_dtype).uniform_(-0.7, 2.3, generator=theirs),
                    f"uniform_({n})")
    assert_same_state(ours, theirs, "after the sequence")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_randn_matches_torch_on_both_paths(seed, ours_dtype, torch_dtype):
    # below 16 elements torch draws Box-Muller pairs one by one and caches the second
    # value; from 16 up it fills whole blocks of 16 (a vectorised polynomial for float32)
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        assert_same(mr.randn(n, ours_dtype, ours),
                    torch.randn(n, dtype=torch_dtype, generator=theirs), f"randn({n})")
    assert_same_state(ours, theirs, "after the sequence")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_normal_with_mean_and_std_matches_torch(seed, ours_dtype, torch_dtype):
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        for mean, std in ((0.0, 0.02), (0.3, 2.5)):
            assert_same(mr.normal_(np.empty(n, ours_dtype), mean, std, ours),
                        torch.empty(n, dtype=torch_dtype).normal_(mean, std,
                                                                  generator=theirs),
                        f"normal_({n}, {mean}, {std})")


@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_large_draws_match_torch(ours_dtype, torch_dtype):
    ours, theirs = twin_generators(2147483647)
    assert_same(mr.randn((300, 333), ours_dtype, ours),
                torch.randn((300, 333), dtype=torch_dtype, generator=theirs), "randn")
    assert_same(mr.rand((1000, 101), ours_dtype, ours),
                torch.rand((1000, 101), dtype=torch_dtype, generator=theirs), "rand")
    assert_same(mr.normal_(np.empty(100_003, ours_dtype), 0.0, 0.02, ours),
                torch.empty(100_003, dtype=torch_dtype).normal_(0.0, 0.02,
                                                                generator=theirs),
                "normal_")


@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_normal_on_a_transposed_array_takes_torchs_element_order(ours_dtype, torch_dtype):
    ours, theirs = twin_generators(8)
    ours_array = np.empty((5, 20), ours_dtype).T
    theirs_tensor = torch.empty(5, 20, dtype=torch_dtype).t()
    mr.normal_(ours_array, 0.0, 1.0, ours)
    theirs_tensor.normal_(0.0, 1.0, generator=theirs)
    assert_same(ours_array, theirs_tensor, "normal_ on a transposed array")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_exponential_matches_torch(seed, ours_dtype, torch_dtype):
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        assert_same(mr.exponential_(np.empty(n, ours_dtype), 1.5, ours),
                    torch.empty(n, dtype=torch_dtype).exponential_(1.5, generator=theirs),
                    f"exponential_({n})")


# -- integers -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_randint_matches_torch_for_small_and_wide_ranges(seed):
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        for low, high in ((0, n + 1), (-5, 7), (-(2**40), 2**40), (0, 2**32)):
            assert_same(mr.randint(low, high, (n,), generator=ours),
                        torch.randint(low, high, (n,), generator=theirs),
                        f"randint({low}, {high}, {n})")
    assert_same(mr.randint(10, shape=(3, 4), generator=ours),
                torch.randint(10, (3, 4), generator=theirs), "randint(high)")
    assert_same(mr.randint(-(2**63), 2**63 - 1, (64,), generator=ours),
                torch.randint(-(2**63), 2**63 - 1, (64,), generator=theirs), "full range")
    assert_same(mr.randint(0, 9, (40,), dtype=np.int32, generator=ours),
                torch.randint(0, 9, (40,), dtype=torch.int32, generator=theirs), "int32")
    assert_same_state(ours, theirs, "after randint")


def test_randint_refuses_an_empty_range():
    with pytest.raises(ValueError, match="low < high"):
        mr.randint(5, 5, (2,))


@pytest.mark.parametrize("seed", SEEDS)
def test_randperm_matches_torch(seed):
    ours, theirs = twin_generators(seed)
    for n in list(range(101)) + [1000, 20_000]:
        assert_same(mr.randperm(n, generator=ours), torch.randperm(n, generator=theirs),
                    f"randperm({n})")


# -- bernoulli and dropout ------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_bernoulli_of_probabilities_matches_torch(seed, ours_dtype, torch_dtype):
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        probs = np.linspace(0.0, 1.0, n).astype(ours_dtype)
        assert_same(mr.bernoulli(probs, ours),
                    torch.bernoulli(torch.from_numpy(probs), generator=theirs),
                    f"bernoulli({n})")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_bernoulli_with_scalar_p_matches_torch(seed, ours_dtype, torch_dtype):
    ours, theirs = twin_generators(seed)
    for n in SIZES:
        assert_same(mr.bernoulli_(np.empty(n, ours_dtype), 0.3, ours),
                    torch.empty(n, dtype=torch_dtype).bernoulli_(0.3, generator=theirs),
                    f"bernoulli_({n})")
        probs = np.full(n, 0.8, ours_dtype)
        assert_same(mr.bernoulli_(np.empty(n, ours_dtype), probs, ours),
                    torch.empty(n, dtype=torch_dtype).bernoulli_(torch.from_numpy(probs),
                                                                 generator=theirs),
                    f"bernoulli_(tensor p, {n})")


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_dropout_mask_reproduces_torch_dropout(p):
    torch.manual_seed(1337)
    mr.manual_seed(1337)
    x = np.linspace(-2, 2, 4 * 65, dtype=np.float32).reshape(4, 65)
    expected = torch.nn.functional.dropout(torch.from_numpy(x), p, training=True)
    assert_same(x * mr.dropout_mask(x.shape, p), expected, f"dropout p={p}")
    assert np.array_equal(mr.get_rng_state(), torch.get_rng_state().numpy())


@pytest.mark.parametrize("p", [0.0, 1e-9, 0.2, 1 / 3, 0.5, 0.9, 1 - 1e-12, 1.0])
def test_dropout_keep_draws_torchs_mask_and_leaves_torchs_state(p):
    torch.manual_seed(99)
    mr.manual_seed(99)
    expected = torch.nn.functional.dropout(torch.ones(3, 50, 7, dtype=torch.float64), p)
    kept, scale = mr.dropout_keep((3, 50, 7), p, np.float64)
    assert kept.dtype == np.bool_
    assert_same(kept * scale, expected, f"dropout_keep p={p}")
    assert np.array_equal(mr.get_rng_state(), torch.get_rng_state().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.1, 0.5, 1.0])
def test_dropout_node_gives_torchs_output_and_gradient_bit_for_bit(p, dtype):
    """F.dropout keeps its mask as bools and a scale (1 byte an element, not 4 or 8);
    output and input gradient must still be torch's exactly, for the same seed."""
    from micrograd.tensors import Tensor
    from micrograd.tensors import functional as F

    x = np.linspace(-2, 2, 6 * 65, dtype=dtype).reshape(6, 65)
    g = np.cos(np.arange(x.size, dtype=dtype)).reshape(x.shape)
    torch.manual_seed(7)
    mr.manual_seed(7)
    theirs = torch.from_numpy(x.copy()).requires_grad_()
    expected = torch.nn.functional.dropout(theirs, p, training=True)
    expected.backward(torch.from_numpy(g))
    ours = Tensor(x.copy(), requires_grad=True)
    out = F.dropout(ours, p, training=True)
    out.backward(Tensor(g))
    assert_same(out.numpy(), expected.detach(), f"dropout p={p}")
    assert_same(ours.grad.numpy(), theirs.grad, f"dropout gradient p={p}")


# -- multinomial ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ours_dtype,torch_dtype", DTYPES, ids=DTYPE_IDS)
def test_multinomial_matches_torch(seed, ours_dtype, torch_dtype):
    ours, theirs = twin_generators(seed)
    for n in SIZES[:100:3] + [1000]:
        probs = np.abs(np.sin(np.arange(3 * n, dtype=ours_dtype))).reshape(3, n)
        probs[:, 0] = 0  # a category that can never be drawn
        probs[:, -1] += 0.1
        tp = torch.from_numpy(probs.copy())
        k = min(n, 5)
        cases = [(probs[0], tp[0], 1, True), (probs, tp, 1, False), (probs, tp, 17, True),
                 (probs[1], tp[1], 40, True), (probs, tp, 1, True)]
        if n > 1:
            cases.append((probs[:, 1:], tp[:, 1:], k if k < n else k - 1, False))
        for ours_probs, theirs_probs, count, replacement in cases:
            assert_same(mr.multinomial(ours_probs, count, replacement, ours),
                        torch.multinomial(theirs_probs, count, replacement,
                                          generator=theirs),
                        f"multinomial(n={n}, {count}, replacement={replacement})")
    assert_same_state(ours, theirs, "after multinomial")


@pytest.mark.parametrize("probs,count,replacement,message", [
    (np.array([0.5, -0.1, 0.6]), 1, True, "< 0"),
    (np.zeros(3), 1, True, "sum of probabilities"),
    (np.ones(3), 4, False, "without replacement"),
    (np.ones((2, 2, 2)), 1, True, "1-d or 2-d"),
    (np.ones(3), 0, True, "positive num_samples"),
])
def test_multinomial_refuses_bad_input(probs, count, replacement, message):
    with pytest.raises(ValueError, match=message):
        mr.multinomial(probs, count, replacement)


# -- sequences as the lectures run them -----------------------------------------------
def test_interleaved_calls_on_the_global_generator_match_torch():
    torch.manual_seed(2024)
    mr.manual_seed(2024)
    steps = [
        (lambda: mr.randn(5), lambda: torch.randn(5)),
        (lambda: mr.rand(20), lambda: torch.rand(20)),
        (lambda: mr.randint(0, 27, (32,)), lambda: torch.randint(0, 27, (32,))),
        (lambda: mr.randn(17), lambda: torch.randn(17)),
        (lambda: mr.randn(3, np.float64), lambda: torch.randn(3, dtype=torch.float64)),
        (lambda: mr.multinomial(np.array([0.2, 0.5, 0.3], np.float32), 4, True),
         lambda: torch.multinomial(torch.tensor([0.2, 0.5, 0.3]), 4, True)),
        (lambda: mr.randn(1), lambda: torch.randn(1)),  # the cached second normal
        (lambda: mr.randperm(30), lambda: torch.randperm(30)),
        (lambda: mr.dropout_mask((7, 9), 0.2) * 0.8,
         lambda: torch.nn.functional.dropout(torch.full((7, 9), 0.8), 0.2)),
        (lambda: mr.normal_(np.empty((64, 64), np.float32), 0.0, 0.02),
         lambda: torch.empty(64, 64).normal_(0.0, 0.02)),
        (lambda: mr.randn(2), lambda: torch.randn(2)),
    ]
    for index, (ours_step, torch_step) in enumerate(steps):
        assert_same(ours_step(), torch_step(), f"step {index}")
    assert np.array_equal(mr.get_rng_state(), torch.get_rng_state().numpy())


def test_makemore_bigram_sampling_gives_the_lectures_draws():
    # makemore part 1: random weights, then names sampled one character at a time
    ours, theirs = twin_generators(2147483647)
    ours_w = mr.randn((27, 27), generator=ours)
    theirs_w = torch.randn((27, 27), generator=theirs)
    assert_same(ours_w, theirs_w, "W")
    for _ in range(5):
        ours_ix = theirs_ix = 0
        while True:
            # the probabilities come from torch so that only the sampling is compared
            theirs_p = theirs_w[theirs_ix].exp() / theirs_w[theirs_ix].exp().sum()
            ours_ix = int(mr.multinomial(theirs_p.numpy(), 1, True, ours)[0])
            theirs_ix = torch.multinomial(theirs_p, 1, True, generator=theirs).item()
            assert ours_ix == theirs_ix
            if ours_ix == 0:
                break


def test_torch_layer_initialisation_is_these_draws_in_order():
    # what a Tensor facade must call so that `torch.manual_seed(1337); model = ...` gives
    # torch's weights: Linear is kaiming_uniform_(a=sqrt(5)) then a uniform bias,
    # Embedding a standard normal fill
    torch.manual_seed(1337)
    linear = torch.nn.Linear(65, 32)
    embedding = torch.nn.Embedding(65, 32)
    mr.manual_seed(1337)
    gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
    weight_bound = math.sqrt(3.0) * gain / math.sqrt(65)
    weight = mr.uniform_(np.empty((32, 65), np.float32), -weight_bound, weight_bound)
    bias = mr.uniform_(np.empty(32, np.float32), -1 / math.sqrt(65), 1 / math.sqrt(65))
    table = mr.normal_(np.empty((65, 32), np.float32))
    assert_same(weight, linear.weight.detach(), "Linear.weight")
    assert_same(bias, linear.bias.detach(), "Linear.bias")
    assert_same(table, embedding.weight.detach(), "Embedding.weight")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_multiply_add_rounds_once_like_the_hardware(dtype):
    # the oracle is exact rational arithmetic: a*b + c rounded once to nearest, ties even
    from fractions import Fraction

    rng = np.random.default_rng(7)
    n = 4000
    a = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    c = (rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))).astype(dtype)
    c[:500] = -(a[:500] * b[:500])  # cancellation: the answer is the product's rounding error
    # products one bit past a halfway point, nudged by c: where rounding twice goes wrong
    a[500:1000] = 1 + np.exp2(-12)
    b[500:1000] = 1 + np.exp2(-12)
    c[500:1000] = np.exp2(-60.0) * rng.integers(-4, 5, 500)
    result = float_emulation.fma(a, b, c, np.dtype(dtype))
    bits = np.finfo(dtype).nmant + 1  # a tie goes to the even last mantissa bit
    for x, y, z, got in zip(a.tolist(), b.tolist(), c.tolist(), result.tolist(), strict=True):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        neighbours = [np.nextafter(dtype(got), dtype(-np.inf)),
                      np.nextafter(dtype(got), dtype(np.inf))]
        error = abs(exact - Fraction(got))
        for other in neighbours:
            other_error = abs(exact - Fraction(float(other)))
            assert error < other_error or (
                error == other_error and int(np.frexp(got)[0] * 2**bits) % 2 == 0), \
                f"fma({x}, {y}, {z}) = {got}, but {float(other)} is nearer"


def test_portable_cpu_kernels_match_torch_under_aten_cpu_capability_default():
    # torch's portable kernels (ARM machines, or forced as here) fill float32 normals with
    # the C library's logf/sinf/cosf; in a fresh process both sides follow the variable
    code = """
import numpy as np, torch
from micrograd.tensors import random as mr
assert mr.cpu_kernels == "default", mr.cpu_kernels
assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
for seed in (0, 2147483647):
    ours, theirs = mr.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    for n in list(range(1, 41)) + [100, 1001]:
        for ours_dtype, torch_dtype in ((np.float32, torch.float32), (np.float64, torch.float64)):
            a = mr.normal_(np.empty(n, ours_dtype), 0.3, 2.5, ours)
            b = torch.empty(n, dtype=torch_dtype).normal_(0.3, 2.5, generator=theirs).numpy()
            assert np.array_equal(a, b), ("normal_", seed, n, ours_dtype)
            a = mr.randn(n, ours_dtype, ours)
            b = torch.randn(n, dtype=torch_dtype, generator=theirs).numpy()
            assert np.array_equal(a, b), ("randn", seed, n, ours_dtype)
            a = mr.uniform_(np.empty(n, ours_dtype), -0.7, 2.3, ours)
            b = torch.empty(n, dtype=torch_dtype).uniform_(-0.7, 2.3, generator=theirs).numpy()
            assert np.array_equal(a, b), ("uniform_", seed, n, ours_dtype)
print("same")
"""
    output = run_python(code, SRC, env={"ATEN_CPU_CAPABILITY": "default"})
    assert output.strip() == "same"
