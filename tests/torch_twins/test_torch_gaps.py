"""Gaps between micrograd.torch and torch 2.13 that ported scripts and old tutorials hit:
the legacy `torch.Tensor(...)` constructor, factories' keywords, `F.mse_loss` on mismatched
shapes, a `.grad` set by hand on a non-leaf, the legacy type names. torch is the oracle."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# --- torch.Tensor(...), the class called as the legacy constructor -----------------------

@pytest.mark.parametrize("data", [[[1, 2]], [1.5, -2.0], [True, False], [[1, 2.5], [3, 4]],
                                  [], [[]]])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_tensor_class_makes_python_data_the_default_float_dtype(data, default):
    previous = torch.get_default_dtype()
    try:
        torch.set_default_dtype(getattr(torch, default))
        mt.set_default_dtype(getattr(mt, default))
        _same(mt.Tensor(data), torch.Tensor(data))
    finally:
        torch.set_default_dtype(previous)
        mt.set_default_dtype(getattr(mt, str(previous).removeprefix("torch.")))


@pytest.mark.parametrize("sizes", [(2, 3), (5, 3), (2, 0, 4), ()])
def test_tensor_class_given_sizes_makes_that_shape(sizes):
    ours, theirs = mt.Tensor(*sizes), torch.Tensor(*sizes)
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))


@pytest.mark.parametrize("shape", [(2, 3), (3,), (0,), ()])
def test_tensor_class_given_a_shape_makes_that_shape(shape):
    ours = mt.Tensor(mt.zeros(shape).shape)  # torch.Tensor(x.shape)
    theirs = torch.Tensor(torch.zeros(shape).shape)
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))


def test_python_numbers_in_ops_keep_torchs_dtypes():
    """The engine wraps Python numbers in ops (torch.where(c, 1, 0)): they keep int64."""
    for lib in (mt, torch):
        t = lib.tensor([1.0, 2.0])
        assert str(lib.where(t > 1, 1, 0).dtype) == "torch.int64"
    np.testing.assert_array_equal(mt.where(mt.tensor([1.0, 2.0]) > 1, 1, 0).numpy(), [0, 1])


@pytest.mark.parametrize("data", [[1, 2], [True], [1.0, 2], 3, 2.5, True, [], [[1], [2]]])
def test_the_tensor_factory_still_infers_as_torch_tensor_does(data):
    _same(mt.tensor(data), torch.tensor(data))


# --- pairwise losses on a target of another shape -----------------------------------------

BROADCAST_LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]


@pytest.mark.parametrize("name", BROADCAST_LOSSES)
@pytest.mark.parametrize("shapes", [((3,), (3, 1)), ((2, 3), (3,)), ((4, 1), (1, 5))])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_a_target_of_another_shape_warns_and_broadcasts_as_torch(name, shapes, reduction):
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    results = []
    for lib in (mt, torch):
        input = lib.tensor(x, requires_grad=True)
        target = lib.tensor(y, requires_grad=True)
        with pytest.warns(UserWarning) as caught:
            loss = getattr(lib.nn.functional, name)(input, target, reduction=reduction)
        loss.sum().backward()
        results.append((loss.detach().numpy(), input.grad.numpy(), target.grad.numpy(),
                        [str(w.message) for w in caught]))
    (ours, theirs) = results
    assert ours[3] == theirs[3]  # torch's words
    for a, b in zip(ours[:3], theirs[:3], strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", BROADCAST_LOSSES)
def test_shapes_that_cannot_broadcast_still_fail(name):
    function = getattr(mt.nn.functional, name)
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="cannot be broadcast"):
        function(mt.zeros(3), mt.zeros(4))
    with pytest.warns(UserWarning), pytest.raises(RuntimeError):
        getattr(torch.nn.functional, name)(torch.zeros(3), torch.zeros(4))


@pytest.mark.parametrize("name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_the_binary_cross_entropies_refuse_another_shape_in_torchs_words(name):
    messages = []
    for lib in (mt, torch):
        with pytest.raises(ValueError) as raised:
            getattr(lib.nn.functional, name)(lib.full((3,), 0.5), lib.full((3, 1), 0.5))
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


# --- a .grad set by hand on a non-leaf ------------------------------------------------------

def _hand_set_story(lib, retain_after: bool):
    x = lib.tensor([1.0, -2.0], requires_grad=True)
    y = x * 3
    y.grad = lib.tensor([10.0, 20.0])
    if retain_after:
        y.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    first = (y.grad.numpy().copy(), x.grad.numpy().copy())
    (y * y).sum().backward()  # a second pass: leaves (and a retained y) accumulate
    return first, (y.grad.numpy(), x.grad.numpy())


@pytest.mark.parametrize("retain_after", [False, True])
def test_a_grad_set_by_hand_on_a_non_leaf_is_what_torch_keeps(retain_after):
    ours, theirs = (_hand_set_story(lib, retain_after) for lib in (mt, torch))
    for our_pass, their_pass in zip(ours, theirs, strict=True):
        for a, b in zip(our_pass, their_pass, strict=True):
            np.testing.assert_array_equal(a, b)


def test_a_grad_set_by_hand_on_a_non_leaf_can_be_cleared():
    for lib in (mt, torch):
        y = lib.tensor([1.0], requires_grad=True) * 2
        y.grad = lib.tensor([5.0])
        y.grad = None
        with pytest.warns(UserWarning, match="not a leaf"):
            assert y.grad is None


# --- the legacy tensor types and Variable -------------------------------------------------

LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
          "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


NEGATIVE_FLOATS = ([1.7, -2.2, 0.0],)
LEGACY_ARGS = [([[1, 2], [3, 4]],), NEGATIVE_FLOATS, ([True],), (2, 3), (),
               (np.array([1.5, 2.5]),)]


# ByteTensor of a negative float is left out: the conversion is undefined in C, and torch
# and numpy give different bytes
@pytest.mark.parametrize(("name", "args"), [
    (name, args) for name in LEGACY for args in LEGACY_ARGS
    if not (name == "ByteTensor" and args is NEGATIVE_FLOATS)])
def test_legacy_tensor_types_make_tensors_of_their_dtype(name, args):
    ours, theirs = getattr(mt, name)(*args), getattr(torch, name)(*args)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    if args and not isinstance(args[0], int):  # sizes: torch's memory is uninitialised
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", LEGACY)
def test_isinstance_of_a_legacy_type_asks_the_dtype_and_type_converts(name):
    for dtype in ("float32", "float64", "int64", "bool"):
        answers = [isinstance(lib.zeros(2, dtype=getattr(lib, dtype)), getattr(lib, name))
                   for lib in (mt, torch)]
        assert answers[0] == answers[1], dtype
    ours = mt.tensor([1.5, 2.0]).type(getattr(mt, name))
    theirs = torch.tensor([1.5, 2.0]).type(getattr(torch, name))
    _same(ours, theirs)
    assert repr(getattr(mt, name)) == repr(getattr(torch, name))


def test_a_legacy_type_refuses_a_tensor_of_another_dtype_and_shares_one_of_its_own():
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.tensor([1, 2]))
    with pytest.raises(TypeError, match=r"t\.type\(torch\.FloatTensor\)"):
        mt.FloatTensor(mt.tensor([1, 2]))
    t = mt.tensor([1.0, 2.0])
    mt.FloatTensor(t)[0] = 5.0
    assert t[0].item() == 5.0  # the same memory, as torch's


@pytest.mark.parametrize("requires_grad", [False, True])
def test_variable_is_a_new_leaf_on_the_same_memory(requires_grad):
    results = []
    for lib in (mt, torch):
        t = lib.tensor([1.0, -2.0])
        v = lib.autograd.Variable(t, requires_grad=requires_grad)
        facts = [v is t, v.requires_grad, v.is_leaf, isinstance(t, lib.autograd.Variable)]
        if requires_grad:
            (v * v).sum().backward()
            facts += [v.grad.tolist(), t.grad]
        v.data[0] = 7.0
        results.append(facts + [t.tolist()])
    assert results[0] == results[1]


def test_variable_refuses_data_that_is_not_a_tensor_and_warns_of_volatile():
    messages = []
    for lib in (mt, torch):
        with pytest.raises(TypeError) as raised:
            lib.autograd.Variable([1.0, 2.0])
        with pytest.warns(UserWarning) as caught:
            lib.autograd.Variable(lib.zeros(1), volatile=True)
        messages.append((str(raised.value), [str(w.message) for w in caught]))
    assert messages[0] == messages[1]


# --- the composed softplus losses at 0 (softplus'(0) = 1/2) -------------------------------

@pytest.mark.parametrize("name, target", [
    ("soft_margin_loss", [[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]),
    ("multilabel_soft_margin_loss", [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]),
])
@pytest.mark.parametrize("at", [0.0, 2.5])
def test_softplus_losses_have_torchs_gradient_at_zero_too(name, target, at):
    grads = []
    for lib in (mt, torch):
        x = lib.full((2, 3), at, dtype=lib.float64, requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, lib.tensor(target, dtype=lib.float64))
        loss.backward()
        grads.append((loss.item(), x.grad.numpy()))
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-14)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-14, atol=0)


# --- factories' keywords --------------------------------------------------------------------

FACTORIES = {"zeros": (2,), "ones": (2,), "empty": (2,), "full": ((2,), 1.0), "rand": (2,),
             "randn": (2,), "arange": (3,), "linspace": (0, 1, 3), "logspace": (0, 1, 3),
             "eye": (2,), "randint": (0, 3, (2,)), "randperm": (3,), "tensor": ([1.0],),
             "zeros_like": (None,), "ones_like": (None,), "empty_like": (None,),
             "full_like": (None, 2.0), "rand_like": (None,), "randn_like": (None,)}


def _outcome(lib, name, **keywords):
    args = tuple(lib.zeros(2) if a is None else a for a in FACTORIES[name])
    try:
        getattr(lib, name)(*args, **keywords)
    except TypeError as error:
        return "TypeError", str(error)
    except RuntimeError as error:
        return "RuntimeError", str(error)
    return "made", ""


@pytest.mark.parametrize("name", FACTORIES)
def test_a_misspelt_keyword_is_a_type_error_naming_it(name):
    (ours, our_text), (theirs, _) = (_outcome(lib, name, dtyp=1) for lib in (mt, torch))
    assert ours == theirs == "TypeError" and "'dtyp'" in our_text


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("keyword, value", [("pin_memory", False), ("layout", "strided"),
                                            ("memory_format", "contiguous_format")])
def test_torchs_memory_keywords_with_their_defaults_are_taken_where_torch_takes_them(
        name, keyword, value):
    outcomes = [_outcome(lib, name, **{keyword: getattr(lib, value) if isinstance(value, str)
                                      else value})[0] for lib in (mt, torch)]
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["zeros", "tensor", "rand_like"])
def test_pin_memory_fails_as_on_torchs_cpu_build(name):
    assert _outcome(mt, name, pin_memory=True) == _outcome(torch, name, pin_memory=True)


def test_the_layout_and_memory_format_constants_print_as_torchs():
    for name in ("strided", "contiguous_format", "preserve_format", "channels_last"):
        assert repr(getattr(mt, name)) == repr(getattr(torch, name))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_a_weight_of_another_shape_is_refused_in_torchs_words_and_its_shapes(name):
    messages = []
    for lib in (mt, torch):
        with pytest.raises(ValueError) as raised:
            getattr(lib.nn.functional, name)(lib.zeros(2, 3), lib.zeros(2, 3),
                                             weight=lib.ones(3))
        messages.append(str(raised.value))
    ours, theirs = messages
    assert ours.startswith(theirs.rstrip(".")) and "weight [3], input [2, 3]" in ours
