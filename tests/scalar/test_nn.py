"""micrograd.nn: Module, Neuron, Layer, MLP -- against PyTorch and the lecture's numbers."""

from __future__ import annotations

import random

import pytest
from conftest import optional_module, require_module

from micrograd.engine import Value
from micrograd.nn import MLP, Layer, Module, Neuron

TORCH_ACTIVATIONS = {
    "relu": lambda t: t.relu(),
    "tanh": lambda t: t.tanh(),
    "sigmoid": lambda t: t.sigmoid(),
    "linear": lambda t: t,
}


def torch_twin_of(model: MLP, x: list[float]):
    """The same network in PyTorch float64 with the model's current weights.

    Returns (outputs, [d sum(outputs) / d p for p in model.parameters()]).
    """
    torch = require_module("torch")
    h = torch.tensor(x, dtype=torch.float64)
    params = []
    for layer in model.layers:
        w = torch.tensor([[p.data for p in n.w] for n in layer.neurons],
                         dtype=torch.float64, requires_grad=True)
        b = torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64,
                         requires_grad=True)
        h = TORCH_ACTIVATIONS[layer.neurons[0].activation](w @ h + b)
        params.append((w, b))
    h.sum().backward()
    grads = []
    for w, b in params:  # parameters() order: neuron by neuron, weights then bias
        for i in range(w.shape[0]):
            grads += w.grad[i].tolist() + [b.grad[i].item()]
    return h.tolist(), grads


def _forward_backward(model, x):
    out = model(x)
    outs = out if isinstance(out, list) else [out]
    total = sum(outs)
    total.backward()
    return [o.data for o in outs], [p.grad for p in model.parameters()]


def test_mlp_3_4_4_1_has_41_parameters():
    assert len(MLP(3, [4, 4, 1]).parameters()) == 41  # 16 + 20 + 5, as in the lecture


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid", "linear"])
@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("inputs", ["numbers", "Values"])  # a layer reads Values once
def test_mlp_forward_and_gradients_match_torch(activation, fused, inputs):
    model = MLP(3, [5, 4, 2], activation=activation, fused=fused, rng=random.Random(3))
    x = [0.5, -1.5, 2.0]
    outs, grads = _forward_backward(model, x if inputs == "numbers" else list(map(Value, x)))
    t_outs, t_grads = torch_twin_of(model, x)
    assert outs == pytest.approx(t_outs, rel=1e-12, abs=1e-14)
    assert grads == pytest.approx(t_grads, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("output_activation", ["tanh", "sigmoid", "relu", "linear"])
def test_output_activation_applies_to_the_last_layer_only(output_activation):
    model = MLP(2, [3, 1], activation="tanh", output_activation=output_activation,
                rng=random.Random(5))
    kinds = {"tanh": "Tanh", "sigmoid": "Sigmoid", "relu": "ReLU", "linear": "Linear"}
    assert repr(model) == (f"MLP of [Layer of [TanhNeuron(2), TanhNeuron(2), TanhNeuron(2)], "
                           f"Layer of [{kinds[output_activation]}Neuron(3)]]")
    outs, grads = _forward_backward(model, [0.3, -0.8])
    t_outs, t_grads = torch_twin_of(model, [0.3, -0.8])
    assert outs == pytest.approx(t_outs, rel=1e-12, abs=1e-14)
    assert grads == pytest.approx(t_grads, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid"])
def test_fused_and_unfused_give_identical_values_and_gradients(activation):
    x = [0.7, -1.1, 2.3]
    results = []
    for fused in (True, False):
        model = MLP(3, [6, 6, 1], activation=activation, fused=fused, rng=random.Random(11))
        loss = sum((model(xi) - yi) ** 2 for xi, yi in ((x, 1.0), ([-x[0], x[1], 0.5], -1.0)))
        loss.backward()
        results.append((loss.data, [p.grad for p in model.parameters()]))
    (fused_loss, fused_grads), (plain_loss, plain_grads) = results
    assert fused_loss == plain_loss  # same additions in the same order: bit-identical
    assert fused_grads == plain_grads


@pytest.mark.parametrize("pattern", [(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 0, 0)])
def test_fused_and_unfused_agree_to_the_bit_when_an_input_value_is_given_twice(pattern):
    # m([x, x, y]): x's shares must be added in the order the fine-grained graph adds them
    # (a different order differs in the last bit for about half of these seeds)
    for seed in range(10):
        results = []
        for fused in (True, False):
            model = MLP(3, [4, 4, 1], activation="tanh", fused=fused, rng=random.Random(seed))
            x, y = Value(0.7), Value(-1.3)
            out = model([(x, y)[k] for k in pattern])
            (out * out).backward()
            results.append([x.grad, y.grad] + [p.grad for p in model.parameters()])
        assert results[0] == results[1], seed


def test_one_neuron_hidden_layer_works():
    model = MLP(2, [16, 1, 1], rng=random.Random(0))
    outs, grads = _forward_backward(model, [1.0, -2.0])
    t_outs, t_grads = torch_twin_of(model, [1.0, -2.0])
    assert outs == pytest.approx(t_outs, rel=1e-12)
    assert grads == pytest.approx(t_grads, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("x", [[1.0, 2.0], [1.0, 2.0, 3.0, 4.0], []])
def test_mlp_wrong_input_length_raises_naming_expected_and_actual(x):
    with pytest.raises(ValueError, match=rf"expects 3 inputs, got {len(x)}"):
        MLP(3, [4, 1])(x)


def test_neuron_and_layer_wrong_input_length_raise():
    with pytest.raises(ValueError, match="expects 2 inputs, got 3"):
        Neuron(2)([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"^Layer expects 2 inputs, got 1"):
        Layer(2, 3)([1.0])


@pytest.mark.parametrize("make, x, message", [
    (lambda: MLP(1, [4, 1]), 1.0, r"MLP expects a list of 1 input .*got float.*\[x\]"),
    (lambda: MLP(2, [4, 1]), (v for v in (1.0, 2.0)), "MLP expects a list of 2 inputs.*generator"),
    (lambda: Neuron(2), Value(1.0), "Neuron expects a list of 2 inputs.*got Value"),
    (lambda: Layer(2, 3), None, "Layer expects a list of 2 inputs.*got NoneType"),
])
def test_an_input_that_is_not_a_list_is_a_clear_type_error(make, x, message):
    with pytest.raises(TypeError, match=message):
        make()(x)


@pytest.mark.parametrize("make", [
    lambda: MLP(0, [1]), lambda: MLP(-2, [1]), lambda: MLP(2.5, [1]), lambda: MLP(True, [1]),
    lambda: MLP(2, []), lambda: MLP(2, 3), lambda: MLP(2, [0]), lambda: MLP(2, [4, -1]),
    lambda: MLP(2, [4.0]), lambda: MLP(2, "ab"), lambda: MLP(2, [4], activation="gelu"),
    lambda: MLP(2, [4], output_activation="softmax"), lambda: Neuron(0), lambda: Layer(2, 0),
    lambda: Neuron(2, activation="Relu"),
])
def test_bad_constructor_arguments_raise_value_error(make):
    with pytest.raises(ValueError):
        make()


def test_bad_constructor_error_says_what_was_expected():
    with pytest.raises(ValueError, match=r"positive int.*0"):
        MLP(0, [1])
    with pytest.raises(ValueError, match=r"relu.*gelu"):
        MLP(2, [1], activation="gelu")


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [3, 1], rng=random.Random(1))
    model([1.0, 1.0]).backward()
    assert any(p.grad != 0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0 for p in model.parameters())
    layer = model.layers[0]
    model([1.0, 1.0]).backward()
    layer.zero_grad()
    assert all(p.grad == 0 for p in layer.parameters())


def test_module_base_class_has_no_parameters():
    assert Module().parameters() == []
    Module().zero_grad()


def test_layer_returns_a_value_for_one_neuron_and_a_list_otherwise():
    assert isinstance(Layer(2, 1)([1.0, 2.0]), Value)
    out = Layer(2, 3)([1.0, 2.0])
    assert isinstance(out, list) and len(out) == 3
    assert isinstance(MLP(2, [3, 2])([1.0, 2.0]), list)


def test_initial_weights_uniform_in_minus_one_one_and_bias_zero():
    model = MLP(4, [8, 8, 1], rng=random.Random(9))
    for layer in model.layers:
        for n in layer.neurons:
            assert all(-1 <= w.data <= 1 for w in n.w) and n.b.data == 0.0


def test_rng_argument_makes_weights_reproducible_without_global_state():
    random.seed(1)
    a = [p.data for p in MLP(3, [4, 1], rng=random.Random(42)).parameters()]
    random.seed(2)
    b = [p.data for p in MLP(3, [4, 1], rng=random.Random(42)).parameters()]
    assert a == b


def test_global_random_seed_gives_same_network():
    random.seed(1337)
    a = [p.data for p in MLP(2, [16, 16, 1]).parameters()]
    random.seed(1337)
    b = [p.data for p in MLP(2, [16, 16, 1]).parameters()]
    assert a == b and len(set(a)) > 1


def test_our_mlp_trains_xor_to_loss_below_001_within_300_steps():
    model = MLP(2, [4, 1], activation="tanh", output_activation="tanh", rng=random.Random(42))
    X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    Y = [-1.0, 1.0, 1.0, -1.0]
    losses = []
    for _ in range(300):
        loss = sum((model(x) - y) ** 2 for x, y in zip(X, Y, strict=True))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.1 * p.grad
        losses.append(loss.data)
    assert min(losses) < 0.01
    # every sign right, confidently
    assert all(model(x).data * y > 0.9 for x, y in zip(X, Y, strict=True))


def test_lecture_network_loss_falls_with_gradient_descent():
    random.seed(0)
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh")
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    losses = []
    for _ in range(50):
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys, strict=True))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data += -0.1 * p.grad
        losses.append(loss.data)
    assert losses[-1] < 0.1 * losses[0]


def test_random_mlps_match_torch():
    # the property is built here, so that only this test needs hypothesis (and skips
    # without it): the module's other tests run on a bare install
    hypothesis = optional_module("hypothesis")
    st = optional_module("hypothesis.strategies")

    @hypothesis.settings(max_examples=25, deadline=None)
    @hypothesis.given(
        nin=st.integers(1, 4),
        nouts=st.lists(st.integers(1, 5), min_size=1, max_size=3),
        activation=st.sampled_from(["relu", "tanh", "sigmoid", "linear"]),
        output_activation=st.sampled_from(["relu", "tanh", "sigmoid", "linear"]),
        fused=st.booleans(),
        seed=st.integers(0, 2**16),
        data=st.data(),
    )
    def random_mlp_matches_torch(nin, nouts, activation, output_activation, fused, seed,
                                 data):
        model = MLP(nin, nouts, activation=activation, output_activation=output_activation,
                    fused=fused, rng=random.Random(seed))
        x = data.draw(st.lists(st.floats(-3, 3), min_size=nin, max_size=nin))
        outs, grads = _forward_backward(model, x)
        t_outs, t_grads = torch_twin_of(model, x)
        assert outs == pytest.approx(t_outs, rel=1e-12, abs=1e-13)
        assert grads == pytest.approx(t_grads, rel=1e-10, abs=1e-13)

    random_mlp_matches_torch()


@pytest.mark.parametrize("fused", [True, False])
def test_training_step_graph_is_freed_without_the_cyclic_collector(fused):
    import gc
    import weakref

    model = MLP(2, [8, 8, 1], fused=fused, rng=random.Random(0))
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        scores = [model(x) for x in ([0.5, 1.0], [-1.0, 2.0])]
        probe = weakref.ref(scores[0])
        loss = sum((1 + -y * s).relu() for y, s in zip((1, -1), scores, strict=True))
        model.zero_grad()
        loss.backward()
        del scores, loss
        assert probe() is None
    finally:
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("make", [lambda: Layer(40, 400), lambda: MLP(40, [200, 200, 1])],
                         ids=["Layer", "MLP"])
def test_a_forward_pass_runs_without_cyclic_collections(make):
    # A graph has no cycles: collecting while it is being built finds nothing, yet every
    # collection counts toward the next full one (which crawls the whole process)
    import gc

    model = make()
    x = [Value(0.01 * i) for i in range(40)]
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()  # allocation count 0: nothing due before the call starts
    gc.callbacks.append(count)
    try:
        out = model(x)
    finally:
        gc.callbacks.remove(count)
    assert collections == []
    assert gc.isenabled()
    assert gc.get_count()[0] > 700  # the call made enough objects to trigger a collection
    assert out is not None


def test_a_forward_pass_leaves_the_collector_as_it_found_it():
    import gc

    model = MLP(2, [3, 1], rng=random.Random(0))
    with pytest.raises(ValueError, match="expects 2 inputs"):
        model([1.0, 2.0, 3.0])
    assert gc.isenabled()
    gc.disable()
    try:
        model([1.0, 2.0])
        assert not gc.isenabled()  # not switched on by a call that found it off
    finally:
        gc.enable()


def test_mlp_calls_the_forward_of_a_layer_of_the_users_own():
    class Doubled(Layer):  # a subclass overriding forward
        def forward(self, x):
            return [2 * v for v in super().forward(x)]

    model = MLP(2, [3, 1], activation="linear", rng=random.Random(4))
    reference = model([0.5, -0.25]).data
    model.layers[-1].__class__ = Doubled
    assert model([0.5, -0.25]).data == 2 * reference
