"""viz/fold.py: which nodes of a network's graph fold into which neuron's (or layer's) box."""

import random

from micrograd.viz.fold import MAX_BOXES, fold_groups, layer_of, neuron_of
from micrograd.viz.graph import leaf_kinds, view


def test_parameter_names_lead_to_their_neuron_and_layer():
    assert neuron_of("layers.0.neurons.2.w.1") == "layers.0.neurons.2"
    assert neuron_of("layers.0.neurons.2.b") == "layers.0.neurons.2"
    assert neuron_of("neurons.3.w.0") == "neurons.3"  # a Layer on its own
    assert neuron_of("w.0") is None and neuron_of("b") is None  # a lone Neuron: nothing to fold
    assert layer_of("layers.1.neurons.2") == "layers.1"
    assert layer_of("neurons.2") == "neurons.2"


def groups_of(model, inputs):
    loss = (model(inputs) - 1.0) ** 2
    graph = view(loss)
    folding = fold_groups(graph, leaf_kinds(graph))
    return graph, folding


def test_a_neuron_holds_its_parameters_and_what_it_computes_not_the_inputs_or_loss():
    from micrograd.lecture import MLP

    random.seed(0)
    model = MLP(2, [3, 1])
    graph, folding = groups_of(model, [2.0, -1.0])
    assert sorted(folding.names) == ["layers.0.neurons.0", "layers.0.neurons.1",
                                     "layers.0.neurons.2", "layers.1.neurons.0"]
    for name, parameter in model.named_parameters():
        group = folding.names[folding.member[id(parameter)]]
        assert name.startswith(group + ".")
    # the lecture's neuron: 2 products, 2 sums (b + w0*x0 + w1*x1), tanh, 3 parameters
    first = folding.names.index("layers.0.neurons.0")
    assert folding.size(first) == 2 + 2 + 1 + 3 and folding.parameters[first] == 3
    ops = {n._op for n in graph.nodes if folding.member.get(id(n)) == first and n._prev}
    assert ops == {"*", "+", "tanh"}
    # the inputs, the target's -1.0 and the loss's ops belong to no neuron
    loose = [n for n in graph.nodes if id(n) not in folding.member]
    assert id(graph.root) in {id(n) for n in loose}  # the loss itself
    assert sorted(n.data for n in loose if not n._prev) == [-1.0, -1.0, -1.0, -1.0, 2.0, 2.0, 2.0]


def test_more_neurons_than_boxes_fold_by_layer():
    from micrograd.nn import MLP

    random.seed(0)
    model = MLP(2, [MAX_BOXES + 1, 1], activation="tanh")
    _, folding = groups_of(model, [2.0, -1.0])
    assert sorted(folding.names) == ["layers.0", "layers.1"]
    assert folding.parameters[folding.names.index("layers.0")] == (MAX_BOXES + 1) * 3


def test_a_graph_without_module_names_does_not_fold():
    from micrograd.engine import Value

    x = Value(2.0, label="x")
    loss = (x * Value(3.0) + Value(1.0)).tanh()
    graph = view(loss)
    assert fold_groups(graph, leaf_kinds(graph)) is None
