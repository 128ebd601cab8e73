"""Parameter names (issue 22, item 4): MLP, Layer and Neuron of micrograd.nn and of
micrograd.lecture name their parameters as PyTorch's named_parameters() names the same
structure of modules (the oracle: a torch module with the same attributes), and every
picture shows those names."""

from __future__ import annotations

import random

import pytest

from micrograd import lecture, nn
from micrograd.viz import dot_source, to_mermaid

LIBRARIES = [nn, lecture]


def torch_names(nin: int, nouts: list[int]) -> list[str]:
    """named_parameters() of a torch module shaped as our MLP: layers[i].neurons[j].w[k], .b"""
    torch = pytest.importorskip("torch")

    class Neuron(torch.nn.Module):
        def __init__(self, n: int):
            super().__init__()
            self.w = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(()))
                                             for _ in range(n)])
            self.b = torch.nn.Parameter(torch.zeros(()))

    class Layer(torch.nn.Module):
        def __init__(self, n: int, m: int):
            super().__init__()
            self.neurons = torch.nn.ModuleList([Neuron(n) for _ in range(m)])

    class MLP(torch.nn.Module):
        def __init__(self, n: int, sizes: list[int]):
            super().__init__()
            sz = [n] + sizes
            self.layers = torch.nn.ModuleList([Layer(sz[i], sz[i + 1])
                                               for i in range(len(sizes))])

    return [name for name, _ in MLP(nin, nouts).named_parameters()]


@pytest.mark.parametrize("library", LIBRARIES, ids=["nn", "lecture"])
@pytest.mark.parametrize("shape", [(3, [4, 4, 1]), (2, [16, 16, 1]), (1, [1])])
def test_mlp_names_are_torchs_named_parameters(library, shape):
    random.seed(0)
    model = library.MLP(*shape)
    named = model.named_parameters()
    # the same names; torch lists a module's own b before its w.0, w.1 (its submodule), ours
    # keep micrograd 0.1.0's parameters() order, w then b
    assert sorted(name for name, _ in named) == sorted(torch_names(*shape))
    assert [p for _, p in named] == model.parameters()  # the same order, the same objects
    assert [p.label for p in model.parameters()] == [name for name, _ in named]


@pytest.mark.parametrize("library", LIBRARIES, ids=["nn", "lecture"])
def test_a_neuron_and_a_layer_on_their_own_have_short_names(library):
    neuron = library.Neuron(3)
    assert [name for name, _ in neuron.named_parameters()] == ["w.0", "w.1", "w.2", "b"]
    assert [p.label for p in neuron.parameters()] == ["w.0", "w.1", "w.2", "b"]
    layer = library.Layer(2, 2)
    assert [p.label for p in layer.parameters()] == [
        "neurons.0.w.0", "neurons.0.w.1", "neurons.0.b",
        "neurons.1.w.0", "neurons.1.w.1", "neurons.1.b"]


@pytest.mark.parametrize("library", LIBRARIES, ids=["nn", "lecture"])
def test_pictures_name_every_parameter(library):
    random.seed(1)
    model = library.MLP(3, [4, 4, 1])
    loss = (model([2.0, 3.0, -1.0]) - 1.0) ** 2
    loss.backward()
    names = [name for name, _ in model.named_parameters()]
    for picture in (dot_source(loss), to_mermaid(loss)):
        missing = [name for name in names if f"{name} | data" not in picture]
        assert missing == []


def test_names_do_not_change_the_numbers():
    """Labels are names only: seeded weights are micrograd 0.1.0's draws, in the same order."""
    random.seed(1337)
    model = nn.MLP(2, [3, 1])
    random.seed(1337)
    draws = [random.uniform(-1, 1) for _ in range(2 * 3 + 3 * 1)]
    weights = [p.data for name, p in model.named_parameters() if ".w." in name]
    assert weights == draws


@pytest.mark.parametrize("library", LIBRARIES, ids=["nn", "lecture"])
def test_leaves_are_parameters_inputs_or_constants(library):
    """The issue's network: weights and biases are parameters, 2.0/3.0/-1.0 the inputs, the
    target and the exponent constants (they were all called constants)."""
    from micrograd.viz.graph import leaf_kinds, view

    random.seed(2)
    model = library.MLP(3, [4, 4, 1])
    loss = (model([2.0, 3.0, -1.0]) - 1.0) ** 2
    graph = view(loss)
    kinds = leaf_kinds(graph)
    parameters = {id(p) for p in model.parameters()}
    by_kind: dict[str, list] = {}
    for node in graph.nodes:
        if not node._prev:
            by_kind.setdefault(kinds[id(node)], []).append(node)
    assert {id(n) for n in by_kind["parameter"]} == parameters
    # each of the first layer's 4 neurons reads the 3 inputs
    assert sorted(n.data for n in by_kind["input"]) == sorted([2.0, 3.0, -1.0] * 4)
    assert all(n.data in (1.0, -1.0, 2.0) for n in by_kind.get("constant", []))
