"""nn.RNNCell/LSTMCell/GRUCell and nn.RNN/LSTM/GRU twinned against PyTorch 2.13: the same
seed gives the same initial weights (torch's init order and stream), and the same input
gives the same outputs, final states and gradients (of the input, the initial state and
every parameter), in float32 and float64, batched and unbatched, batch_first, several
layers and both directions.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from conftest import require_module
from twin import assert_twins

import micrograd.torch as mt

torch = require_module("torch")
from test_more_ops import assert_raises_as_torch  # noqa: E402  (needs torch)

TWINS = pathlib.Path(__file__).parent / "twins"
TOLERANCE = {"float64": dict(rtol=1e-9, atol=1e-11), "float32": dict(rtol=2e-4, atol=2e-5)}

# name: (constructor(nn), input shape, give an initial state?)
CELLS = {
    "RNNCell": (lambda nn: nn.RNNCell(3, 4), (2, 3), True),
    "RNNCell relu, no bias": (lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
                              (5, 3), True),
    "RNNCell unbatched, no state": (lambda nn: nn.RNNCell(3, 2), (3,), False),
    "GRUCell": (lambda nn: nn.GRUCell(3, 4), (2, 3), True),
    "GRUCell no state": (lambda nn: nn.GRUCell(2, 5), (3, 2), False),
    "LSTMCell": (lambda nn: nn.LSTMCell(3, 4), (2, 3), True),
    "LSTMCell unbatched": (lambda nn: nn.LSTMCell(2, 3), (2,), True),
}

SEQUENCES = {
    "RNN": (lambda nn: nn.RNN(3, 4), (5, 2, 3), True),
    "RNN relu 2 layers": (lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu"), (4, 2, 3), False),
    "RNN unbatched": (lambda nn: nn.RNN(3, 2), (4, 3), True),
    "GRU": (lambda nn: nn.GRU(3, 4), (5, 2, 3), True),
    "GRU 2 layers batch_first": (lambda nn: nn.GRU(3, 4, 2, batch_first=True), (2, 5, 3), True),
    "GRU bidirectional": (lambda nn: nn.GRU(2, 3, bidirectional=True), (4, 2, 2), False),
    "LSTM": (lambda nn: nn.LSTM(3, 4), (5, 2, 3), True),
    "LSTM 2 layers, no bias": (lambda nn: nn.LSTM(3, 4, 2, bias=False), (3, 2, 3), False),
    "LSTM bidirectional 2 layers": (lambda nn: nn.LSTM(2, 3, 2, bidirectional=True),
                                    (4, 2, 2), True),
    "LSTM batch_first unbatched": (lambda nn: nn.LSTM(3, 2, batch_first=True), (4, 3), True),
    "LSTM dropout in eval": (lambda nn: nn.LSTM(3, 4, 2, dropout=0.5).eval(), (3, 2, 3), False),
}


def _state_shape(module, input_shape):
    if hasattr(module, "num_layers"):  # a sequence module: (layers * directions, batch, hidden)
        count = module.num_layers * (2 if module.bidirectional else 1)
        batch = () if len(input_shape) == 2 else (input_shape[0 if module.batch_first else 1],)
        return (count, *batch, module.hidden_size)
    return (*input_shape[:-1], module.hidden_size)


def _run(m, make, input_shape, with_state, dtype, seed):
    m.manual_seed(seed)
    module = make(m.nn).to(getattr(m, dtype))
    rng = np.random.default_rng(seed)
    x = m.tensor(rng.standard_normal(input_shape).tolist(), dtype=getattr(m, dtype))
    x.requires_grad_()
    inputs = [x]
    lstm = "LSTM" in type(module).__name__
    state = None
    if with_state:
        shape = _state_shape(module, input_shape)
        parts = [m.tensor(rng.standard_normal(shape).tolist(), dtype=getattr(m, dtype))
                 .requires_grad_() for _ in range(2 if lstm else 1)]
        inputs += parts
        state = tuple(parts) if lstm else parts[0]
    result = module(x) if state is None else module(x, state)
    outputs = [t for part in (result if isinstance(result, tuple) else (result,))
               for t in (part if isinstance(part, tuple) else (part,))]
    loss = sum((o * m.tensor(rng.standard_normal(tuple(o.shape)).tolist(),
                             dtype=getattr(m, dtype))).sum() for o in outputs)
    loss.backward()
    named = dict(module.named_parameters())
    return outputs, inputs, named


def _twin(make, input_shape, with_state, dtype, seed):
    theirs = _run(torch, make, input_shape, with_state, dtype, seed)
    ours = _run(mt, make, input_shape, with_state, dtype, seed)
    tol = TOLERANCE[dtype]
    for kind, a, b in (("output", theirs[0], ours[0]), ("input", theirs[1], ours[1])):
        assert len(a) == len(b)
        for i, (t, o) in enumerate(zip(a, b, strict=True)):
            assert tuple(o.shape) == tuple(t.shape), f"{kind} {i}"
            np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), **tol,
                                       err_msg=f"{kind} {i}")
            if kind == "input":
                np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), **tol,
                                           err_msg=f"gradient of input {i}")
    assert list(ours[2]) == list(theirs[2]), "parameter names or order differ"
    for name, p in theirs[2].items():
        q = ours[2][name]
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), **tol,
                                   err_msg=f"initial {name}")
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), **tol,
                                   err_msg=f"gradient of {name}")


@pytest.mark.parametrize("seed", (0, 1))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_twins_torch(name, dtype, seed):
    _twin(*CELLS[name], dtype, seed)


@pytest.mark.parametrize("seed", (0, 1))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_sequence_twins_torch(name, dtype, seed):
    _twin(*SEQUENCES[name], dtype, seed)


@pytest.mark.parametrize("make", [
    lambda nn: nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True),
    lambda nn: nn.GRUCell(3, 4, bias=False),
    lambda nn: nn.RNN(2, 3, nonlinearity="relu", dropout=0.25, num_layers=2),
], ids=["LSTM", "GRUCell", "RNN"])
def test_reprs_are_torchs(make):
    assert repr(make(mt.nn)) == repr(make(torch.nn))


ERRORS = {
    "wrong input size": lambda m: m.nn.LSTM(3, 4)(m.zeros(2, 1, 5)),
    "4-d input": lambda m: m.nn.GRU(3, 4)(m.zeros(2, 1, 1, 3)),
    "cell 3-d input": lambda m: m.nn.RNNCell(3, 4)(m.zeros(2, 1, 3)),
    "bad nonlinearity": lambda m: m.nn.RNN(3, 4, nonlinearity="sigmoid"),
    "bad dropout": lambda m: m.nn.GRU(3, 4, dropout=1.5),
    "wrong state shape": lambda m: m.nn.GRU(3, 4)(m.zeros(2, 1, 3), m.zeros(2, 1, 4)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_use_raises_as_torch(name):
    assert_raises_as_torch(ERRORS[name])


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_a_character_model_script_trains_and_generates_as_under_torch(kind, tmp_path):
    """The same script text under both: model repr, parameter count, the losses of 25 Adam
    steps (float64) and the greedy text that carries the hidden state."""
    assert_twins(TWINS / "char_rnn.py", tmp_path, rel=1e-9, abs_=1e-12, args=(kind,))
