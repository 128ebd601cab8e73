"""Layer initialisation, dropout, shuffling and splits draw torch's random numbers, in
torch's order: after the same seed, the same modules built in torch and in micrograd have
bit-for-bit equal state_dicts, and the draws that follow are equal too.

The oracle is torch 2.13 itself, run in this process next to micrograd.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module

torch = require_module("torch")

import micrograd.torch as mt  # noqa: E402
from micrograd.tensors import random as streams  # noqa: E402
from micrograd.tensors.nn import init as our_init  # noqa: E402
from micrograd.torch.utils import data as our_data  # noqa: E402


def seed_both(seed: int) -> None:
    torch.manual_seed(seed)
    mt.manual_seed(seed)


def as_array(value) -> np.ndarray:
    """A tensor of either library (or a plain array) as a numpy array."""
    if hasattr(value, "detach"):
        return np.asarray(value.detach().numpy())
    return np.asarray(value)


def assert_same_state(theirs, ours) -> None:
    a, b = theirs.state_dict(), ours.state_dict()
    assert list(a) == list(b)
    for key in a:
        x, y = as_array(a[key]), as_array(b[key])
        assert x.dtype == y.dtype, f"{key}: {x.dtype} vs {y.dtype}"
        np.testing.assert_array_equal(y, x, err_msg=key)


def next_draws_equal() -> None:
    """The global streams are in the same place: the next draws agree."""
    np.testing.assert_array_equal(streams.randn((5,)), torch.randn(5).numpy())
    np.testing.assert_array_equal(streams.rand((17,)), torch.rand(17).numpy())


def gpt_like(tm, dtype, vocab=65, n_embd=32, block=8, n_layer=2):
    """The modules of the GPT lecture's model, built in its order."""
    nn = tm.nn
    blocks = []
    for _ in range(n_layer):
        blocks.append(nn.ModuleDict({
            "key": nn.Linear(n_embd, n_embd, bias=False, dtype=dtype),
            "query": nn.Linear(n_embd, n_embd, bias=False, dtype=dtype),
            "value": nn.Linear(n_embd, n_embd, bias=False, dtype=dtype),
            "proj": nn.Linear(n_embd, n_embd, dtype=dtype),
            "ffwd": nn.Sequential(nn.Linear(n_embd, 4 * n_embd, dtype=dtype), nn.ReLU(),
                                  nn.Linear(4 * n_embd, n_embd, dtype=dtype), nn.Dropout(0.2)),
            "ln1": nn.LayerNorm(n_embd, dtype=dtype),
            "ln2": nn.LayerNorm(n_embd, dtype=dtype),
        }))
    return nn.ModuleDict({
        "token_embedding_table": nn.Embedding(vocab, n_embd, dtype=dtype),
        "position_embedding_table": nn.Embedding(block, n_embd, dtype=dtype),
        "blocks": nn.ModuleList(blocks),
        "ln_f": nn.LayerNorm(n_embd, dtype=dtype),
        "lm_head": nn.Linear(n_embd, vocab, dtype=dtype),
    })


@pytest.mark.parametrize("seed", [1337, 42])
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_a_seeded_gpt_starts_from_torchs_exact_weights(seed, dtype_name):
    seed_both(seed)
    theirs = gpt_like(torch, getattr(torch, dtype_name))
    ours = gpt_like(mt, getattr(mt, dtype_name))
    assert_same_state(theirs, ours)
    next_draws_equal()


def makemore_layers(tm, dtype):
    nn = tm.nn
    return nn.Sequential(
        nn.Linear(30, 200, bias=False, dtype=dtype), nn.BatchNorm1d(200, dtype=dtype),
        nn.Tanh(), nn.Linear(200, 27, dtype=dtype), nn.Embedding(27, 10, padding_idx=0,
                                                                dtype=dtype))


@pytest.mark.parametrize("sizes", [(1, 1), (3, 5), (7, 2), (16, 1), (1, 16), (33, 9)])
def test_linear_weight_and_bias_for_every_shape_interleaved_with_other_draws(sizes):
    fan_in, fan_out = sizes
    seed_both(fan_in * 100 + fan_out)
    for size in (fan_in, 3 * fan_out + 1):
        np.testing.assert_array_equal(streams.randn((size,)), torch.randn(size).numpy())
        theirs = torch.nn.Linear(fan_in, fan_out, dtype=torch.float32)
        ours = mt.nn.Linear(fan_in, fan_out, dtype=mt.float32)
        assert_same_state(theirs, ours)
    next_draws_equal()


def test_batchnorm_embedding_with_padding_and_layernorm_as_torchs():
    seed_both(2147483647)
    assert_same_state(makemore_layers(torch, torch.float32), makemore_layers(mt, mt.float32))
    next_draws_equal()


@pytest.mark.parametrize("name, kwargs", [
    ("uniform_", {"a": -0.3, "b": 0.7}), ("normal_", {"mean": 0.5, "std": 2.0}),
    ("xavier_uniform_", {"gain": 5 / 3}), ("xavier_normal_", {}),
    ("kaiming_uniform_", {"a": math.sqrt(5)}),
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}),
])
@pytest.mark.parametrize("shape", [(3, 4), (20, 10), (4, 3, 2)])
def test_init_functions_on_a_generator_of_their_own(name, kwargs, shape):
    g_torch = torch.Generator().manual_seed(7)
    g_ours = streams.Generator().manual_seed(7)
    for _ in range(2):  # twice: the second fill starts where the first left the stream
        theirs = torch.empty(shape, dtype=torch.float32)
        ours = mt.zeros(*shape, dtype=mt.float32)
        getattr(torch.nn.init, name)(theirs, generator=g_torch, **kwargs)
        getattr(our_init, name)(ours, generator=g_ours, **kwargs)
        np.testing.assert_array_equal(as_array(ours), theirs.numpy())
    assert np.array_equal(g_ours.get_state(), g_torch.get_state().numpy())


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("shape", [(4,), (5, 7), (16, 8, 3)])
def test_dropout_masks_are_torchs(p, shape):
    seed_both(3)
    x = np.arange(1, math.prod(shape) + 1, dtype=np.float32).reshape(shape)
    theirs = torch.nn.Dropout(p)(torch.tensor(x))
    ours = mt.nn.Dropout(p)(mt.tensor(x, dtype=mt.float32))
    np.testing.assert_array_equal(as_array(ours), theirs.numpy())
    eval_out = mt.nn.Dropout(p).eval()(mt.tensor(x, dtype=mt.float32))
    np.testing.assert_array_equal(as_array(eval_out), x)  # no draw in eval mode
    next_draws_equal()


def loader_epochs(data_module, tensor, n, batch_size, epochs, **kwargs):
    dataset = data_module.TensorDataset(tensor(np.arange(n)))
    loader = data_module.DataLoader(dataset, batch_size=batch_size, **kwargs)
    return [[batch[0].tolist() for batch in loader] for _ in range(epochs)]


@pytest.mark.parametrize("n, batch_size, drop_last", [
    (10, 3, False), (12, 4, False), (10, 3, True), (12, 4, True), (1, 5, False), (50, 50, False),
])
def test_shuffled_loader_visits_batches_in_torchs_order(n, batch_size, drop_last):
    seed_both(11)
    theirs = loader_epochs(torch.utils.data, torch.tensor, n, batch_size, 3, shuffle=True,
                           drop_last=drop_last)
    ours = loader_epochs(our_data, mt.tensor, n, batch_size, 3, shuffle=True,
                         drop_last=drop_last)
    assert ours == theirs
    next_draws_equal()


@pytest.mark.parametrize("n, batch_size", [(10, 3), (12, 4)])
def test_loader_with_its_own_generator_leaves_it_where_torch_does(n, batch_size):
    seed_both(5)
    g_torch = torch.Generator().manual_seed(99)
    g_ours = streams.Generator().manual_seed(99)
    theirs = loader_epochs(torch.utils.data, torch.tensor, n, batch_size, 2, shuffle=True,
                           generator=g_torch)
    ours = loader_epochs(our_data, mt.tensor, n, batch_size, 2, shuffle=True,
                         generator=g_ours)
    assert ours == theirs
    assert np.array_equal(g_ours.get_state(), g_torch.get_state().numpy())
    next_draws_equal()  # the global stream was not touched by either


def test_an_unshuffled_loader_still_draws_torchs_base_seed_each_epoch():
    seed_both(8)
    theirs = loader_epochs(torch.utils.data, torch.tensor, 7, 2, 3, shuffle=False)
    ours = loader_epochs(our_data, mt.tensor, 7, 2, 3, shuffle=False)
    assert ours == theirs == [[[0, 1], [2, 3], [4, 5], [6]]] * 3
    next_draws_equal()


def test_draws_between_batches_interleave_as_in_torch():
    seed_both(21)
    results = []
    for tm, data_module in ((torch, torch.utils.data), (mt, our_data)):
        rand = torch.rand if tm is torch else (lambda k: streams.rand((k,)))
        loader = data_module.DataLoader(data_module.TensorDataset(tm.tensor(np.arange(9))),
                                        batch_size=4, shuffle=True)
        seen = []
        iterator = iter(loader)
        seen.append(np.asarray(rand(3)).tolist())  # after the base seed, before the order
        for (batch,) in iterator:
            seen.append(batch.tolist())
            seen.append(np.asarray(rand(2)).tolist())
        results.append(seen)
    assert results[1] == results[0]


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [10, 0]])
def test_random_split_takes_torchs_permutation(lengths):
    seed_both(4)
    theirs = torch.utils.data.random_split(range(10), lengths)
    ours = our_data.random_split(list(range(10)), lengths)
    assert [list(s.indices) for s in ours] == [list(s.indices) for s in theirs]
    g_torch, g_ours = torch.Generator().manual_seed(1), streams.Generator().manual_seed(1)
    theirs = torch.utils.data.random_split(range(10), lengths, generator=g_torch)
    ours = our_data.random_split(list(range(10)), lengths, generator=g_ours)
    assert [list(s.indices) for s in ours] == [list(s.indices) for s in theirs]
    next_draws_equal()


def test_a_wrong_generator_is_refused_with_what_is_expected():
    with pytest.raises(TypeError, match=r"torch\.Generator"):
        our_init.normal_(mt.zeros(3, dtype=mt.float32), generator=12)
    with pytest.raises(TypeError, match=r"torch\.Generator"):
        our_data.DataLoader([1, 2], shuffle=True, generator="seed")


def test_one_element_integer_tensors_are_indices_as_in_torch():
    data = list(range(20))
    for tm in (torch, mt):
        i = tm.randint(0, 10, (3,))[1]
        assert data[i:i + 3] == [int(i), int(i) + 1, int(i) + 2]
        assert [10, 20, 30][tm.tensor(2)] == 30
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            data[tm.tensor(1.0):]
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            data[tm.tensor([1, 2]):]


def test_reassigning_a_parameter_keeps_its_place_as_in_torch():
    orders = []
    for tm in (torch, mt):
        layer = tm.nn.BatchNorm1d(4)
        with tm.no_grad():
            layer.weight *= 0.1  # Python assigns layer.weight again
        layer.bias = tm.nn.Parameter(tm.zeros(4))
        orders.append([name for name, _ in layer.named_parameters()])
    assert orders[1] == orders[0] == ["weight", "bias"]


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("bins, density, use_range", [
    (100, True, False), (7, False, False), (12, True, True), (1, False, False),
])
def test_histogram_counts_and_edges_as_torchs(dtype_name, bins, density, use_range):
    rng = np.random.default_rng(bins)
    x = (rng.normal(size=200) * 3).astype(dtype_name)
    kwargs = {"range": (-2.5, 4.0)} if use_range else {}
    hist, edges = torch.histogram(torch.tensor(x), bins=bins, density=density, **kwargs)
    ours_hist, ours_edges = mt.histogram(mt.tensor(x), bins=bins, density=density, **kwargs)
    assert as_array(ours_hist).dtype == as_array(ours_edges).dtype == np.dtype(dtype_name)
    # edges to float32 rounding of the whole range (torch's vectorised linspace rounds
    # some interior edges differently from start + i * step)
    np.testing.assert_allclose(as_array(ours_edges), edges.numpy(), rtol=0,
                               atol=4e-7 * float(np.abs(edges.numpy()).max()))
    # counts exactly; densities divide by those bin widths
    np.testing.assert_allclose(as_array(ours_hist), hist.numpy(), rtol=1e-4 if density else 0)
    same_values = mt.histogram(mt.tensor(np.full(3, 2.0, dtype=dtype_name)), bins=2)
    assert as_array(same_values.bin_edges).tolist() == [1.5, 2.0, 2.5]  # torch's +-0.5
    assert as_array(same_values.hist).tolist() == [0.0, 3.0]


def legendre_p3(tm):
    class LegendreP3(tm.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            return scale * 0.5 * (5 * x**3 - 3 * x)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * x**2 - 1), None

    return LegendreP3


def test_a_custom_autograd_function_as_in_torch():
    values = np.linspace(-1.5, 1.5, 7)
    results = []
    for tm in (torch, mt):
        x = tm.tensor(values, dtype=tm.float64, requires_grad=True)
        out = legendre_p3(tm).apply(x * 2.0, 3.0)
        (out * tm.tensor(np.arange(7.0), dtype=tm.float64)).sum().backward()
        results.append((as_array(out), as_array(x.grad), out.requires_grad))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-15)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-15)
    assert results[1][2] is results[0][2] is True
    with mt.no_grad():
        assert not legendre_p3(mt).apply(mt.tensor(values, requires_grad=True), 1.0).requires_grad


def test_a_custom_function_returning_the_wrong_number_of_gradients_says_so():
    class Bad(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="returned 1 gradients, but forward took 2"):
        Bad.apply(x, x).sum().backward()
