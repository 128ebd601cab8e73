"""The torch names real scripts reach for beyond the lectures (scatter/index_add/take,
narrow/diagonal/rot90/repeat_interleave, addmm/baddbmm/kron/cross, fmod/atan2/lerp/
addcmul, median/kthvalue, ...), each twinned against PyTorch 2.13 through the facade a
script sees (`micrograd.torch`): forward values, dtypes, shapes and the gradient of every
input, in float32 and float64, on several random draws; and the same bad calls refused
with the same exception type.

One table: each row is a function of the module (`torch` or `micrograd.torch`) and the
input tensors, so the very same text runs on both.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

TOLERANCE = {np.float64: dict(rtol=1e-9, atol=1e-11), np.float32: dict(rtol=2e-4, atol=2e-5)}
SEEDS = (0, 1, 2)
A, B, W = (3, 4), (4, 5), (2, 3, 4)
SQUARE = (4, 4)


def _long(m, values):
    return m.tensor(values, dtype=m.long)


def _distinct(m):  # a (2, 4) index along dim 0 of a (3, 4) tensor, no repeats per column
    return _long(m, [[0, 2, 1, 0], [2, 1, 0, 1]])


# name: (input shapes, fn(m, *tensors)); inputs are uniform in (-2, 2) unless a shape entry
# is (shape, low, high)
OPS = {
    # picking by index
    "scatter(src)": ([A, (2, 4)], lambda m, x, s: x.scatter(0, _distinct(m), s)),
    "torch.scatter(value=)": ([A], lambda m, x: m.scatter(x, 0, _distinct(m), value=0.5)),
    "scatter(1, ...) smaller index": ([A, (3, 2)], lambda m, x, s: x.scatter(
        1, _long(m, [[3, 0], [1, 2], [0, 3]]), s)),
    "scatter_ on a copy": ([A, (2, 4)], lambda m, x, s: (x * 1).scatter_(0, _distinct(m), s)),
    "scatter_(value) on a copy": ([A], lambda m, x: (x * 2).scatter_(1, _long(
        m, [[0], [3], [1]]), -1.0)),
    "scatter_add_ repeated": ([A, A], lambda m, x, s: (x + 0).scatter_add_(
        0, _long(m, [[0, 0, 1, 2], [0, 2, 2, 2], [1, 1, 1, 0]]), s)),
    "index_add": ([A, (3, 2)], lambda m, x, s: x.index_add(1, _long(m, [3, 0]), s)),
    "index_add repeated, alpha": ([A, (3, 4)], lambda m, x, s: m.index_add(
        x, 0, _long(m, [2, 2, 0]), s, alpha=0.5)),
    "index_add_ on a copy": ([A, (2, 4)], lambda m, x, s: x.clone().index_add_(
        0, _long(m, [1, 2]), s)),
    "index_copy": ([A, (2, 4)], lambda m, x, s: x.index_copy(0, _long(m, [2, 0]), s)),
    "index_copy_": ([A, (3, 1)], lambda m, x, s: (x - 1).index_copy_(1, _long(m, [2]), s)),
    "index_fill": ([W], lambda m, x: x.index_fill(2, _long(m, [0, 3]), -2.0)),
    "index_fill_": ([A], lambda m, x: (x * 3).index_fill_(0, _long(m, [1]), 7.0)),
    "masked_select": ([A], lambda m, x: x.masked_select(x.detach() > 0.3)),
    "masked_select broadcast": ([A], lambda m, x: m.masked_select(
        x, m.tensor([True, False, True, True]))),
    "take": ([A], lambda m, x: x.take(_long(m, [[0, 11], [5, 5]]))),
    "torch.take negative": ([A], lambda m, x: m.take(x, _long(m, [-1, 3, -12]))),
    # views and layouts
    "narrow": ([W], lambda m, x: x.narrow(2, 1, 2)),
    "torch.narrow(-1)": ([A], lambda m, x: m.narrow(x, -1, 0, 3)),
    "select": ([W], lambda m, x: x.select(1, -1)),
    "torch.select": ([A], lambda m, x: m.select(x, 0, 1)),
    "diagonal": ([SQUARE], lambda m, x: x.diagonal()),
    "diagonal(offset=1)": ([A], lambda m, x: x.diagonal(1)),
    "diagonal(-2)": ([B], lambda m, x: m.diagonal(x, offset=-2)),
    "diagonal(dims 0, 2)": ([W], lambda m, x: x.diagonal(0, 0, 2)),
    "unflatten": ([(3, 12)], lambda m, x: x.unflatten(1, (2, -1, 3))),
    "torch.unflatten": ([(6, 2)], lambda m, x: m.unflatten(x, 0, (2, 3))),
    "fliplr": ([W], lambda m, x: x.fliplr()),
    "flipud": ([A], lambda m, x: m.flipud(x)),
    "rot90": ([A], lambda m, x: x.rot90()),
    "rot90(3, [0, 2])": ([W], lambda m, x: m.rot90(x, 3, [0, 2])),
    "rot90(-1)": ([A], lambda m, x: x.rot90(-1, (0, 1))),
    "repeat_interleave(2)": ([A], lambda m, x: x.repeat_interleave(2)),
    "repeat_interleave(dim=0)": ([A], lambda m, x: x.repeat_interleave(3, dim=0)),
    "repeat_interleave(tensor)": ([A], lambda m, x: m.repeat_interleave(
        x, _long(m, [1, 0, 2, 3]), dim=1)),
    "tensor_split(3)": ([(7, 2)], lambda m, x: x.tensor_split(3)),
    "tensor_split([1, 3], dim=1)": ([W], lambda m, x: m.tensor_split(x, [1, 3], dim=2)),
    "hsplit": ([(2, 6)], lambda m, x: x.hsplit(3)),
    "vsplit([1])": ([A], lambda m, x: m.vsplit(x, [1])),
    "diff": ([A], lambda m, x: x.diff()),
    "diff(n=2, dim=0)": ([(5, 3)], lambda m, x: m.diff(x, n=2, dim=0)),
    "diff(prepend, append)": ([A, (3, 1), (3, 2)], lambda m, x, p, a: x.diff(
        prepend=p, append=a)),
    "tril_ on a copy": ([SQUARE], lambda m, x: (x * 1).tril_(-1)),
    "triu_ on a copy": ([A], lambda m, x: (x * 1).triu_(1)),
    # products
    "addmm": ([(3, 5), A, B], lambda m, c, a, b: m.addmm(c, a, b)),
    "addmm(beta, alpha), broadcast": ([(5,), A, B], lambda m, c, a, b: c.addmm(
        a, b, beta=0.5, alpha=-2.0)),
    "baddbmm": ([(2, 3, 5), (2, 3, 4), (2, 4, 5)], lambda m, c, a, b: m.baddbmm(c, a, b)),
    "baddbmm(beta=0)": ([(2, 3, 5), (2, 3, 4), (2, 4, 5)], lambda m, c, a, b: c.baddbmm(
        a, b, beta=0.0, alpha=0.3)),
    "addbmm-free mv": ([A, (4,)], lambda m, a, v: m.mv(a, v)),
    "x.mv": ([B, (5,)], lambda m, a, v: a.mv(v)),
    "kron": ([(2, 3), (3, 2)], lambda m, a, b: m.kron(a, b)),
    "kron 3-d and 2-d": ([W, (2, 1)], lambda m, a, b: a.kron(b)),
    "cross": ([(4, 3), (4, 3)], lambda m, a, b: m.cross(a, b, dim=1)),
    "cross broadcast": ([(2, 1, 3), (1, 4, 3)], lambda m, a, b: m.cross(a, b, dim=-1)),
    "cross dim 0": ([(3, 5), (3, 5)], lambda m, a, b: a.cross(b, dim=0)),
    # elementwise with two or three inputs
    "x.add(y, alpha=2)": ([A, (1, 4)], lambda m, x, y: x.add(y, alpha=2)),
    "torch.add(number, x)": ([A], lambda m, x: m.add(2.5, x)),
    "torch.sub(x, y, alpha=)": ([A, A], lambda m, x, y: m.sub(x, y, alpha=0.5)),
    "x.subtract(3)": ([A], lambda m, x: x.subtract(3)),
    "torch.mul / x.multiply": ([A, (3, 1)], lambda m, x, y: m.mul(x, y).multiply(y)),
    "x.div(y)": ([A, (A, 0.5, 2)], lambda m, x, y: x.div(y)),
    "torch.true_divide / divide": ([A, (A, 0.5, 2)], lambda m, x, y: m.true_divide(
        m.divide(x, y), 3)),
    "div(rounding_mode=floor)": ([(A, -5, 5), (A, 0.5, 2)], lambda m, x, y: m.div(
        x, y, rounding_mode="floor") * x),
    "div(rounding_mode=trunc)": ([(A, -5, 5)], lambda m, x: x.div(
        -0.7, rounding_mode="trunc") + x),
    "integer div floor and trunc": ([], lambda m: m.stack([
        m.div(_long(m, [7, -7, 7, -7, 6]), _long(m, [2, 2, -2, -2, 3]), rounding_mode=r)
        for r in ("floor", "trunc")])),
    "floor_divide": ([], lambda m: m.floor_divide(_long(m, [[9, -9], [4, 5]]), 4)),
    "ravel, moveaxis, swapdims": ([W], lambda m, x: m.swapdims(m.moveaxis(x, 0, 2), 0, 1)
                                   .ravel()),
    "vstack": ([(4,), (2, 4)], lambda m, a, b: m.vstack([a, b])),
    "hstack 1-d and 2-d": ([(3,), (2,), (2, 3), (2, 1)], lambda m, a, b, c, d: m.cat(
        [m.hstack([a, b]), m.hstack([c, d]).ravel()])),
    "dstack, column_stack": ([(3,), (3,), (3, 2)], lambda m, a, b, c: m.dstack([a, b]).sum()
                             + m.column_stack([a, c, b]).sum(0).sum()),
    "atleast_3d": ([(2, 3)], lambda m, x: m.atleast_3d(x) * m.atleast_2d(x[0]).sum()),
    "trace": ([SQUARE], lambda m, x: x.trace() * m.trace(x)),
    "logaddexp": ([(A, -30, 30), (1, 4)], lambda m, x, y: m.logaddexp(x, y)),
    "logit(eps)": ([(A, 0, 1)], lambda m, x: m.logit(x, eps=0.1) + x.logit()),
    "positive, negative, sgn": ([A], lambda m, x: m.positive(x) * x.negative() + x.sgn()),
    # (no column all nan: there torch's nanmean backward divides 0 by 0)
    "nansum, nanmean": ([A], lambda m, x: m.stack([
        (x.log()).nansum(), x.log().nanmean(), m.nansum(x, 1).sum(),
        m.cat([x, m.ones(1, 4, dtype=x.dtype)]).log().nanmean(0)[0]])),
    "masks combined with & | ^": ([A, A], lambda m, x, y: m.where(
        ((x > 0) & (y < 0.5)) | ((x < -1) ^ (y > 1)), x, y)),
    "bool & True, 1 | mask": ([A], lambda m, x: m.stack([(x > 0) & True, 1 | (x > 1)])),
    "bitwise on integers": ([], lambda m: m.stack([
        m.bitwise_and(_long(m, [12, 10, -3]), 6), _long(m, [1, 2, 3]) | _long(m, [4, 4, 4]),
        m.bitwise_xor(_long(m, [5, 5, 5]), _long(m, [1, 2, 3])),
        m.bitwise_not(_long(m, [0, 1, -2]))])),
    "argwhere": ([], lambda m: m.argwhere(m.tensor([[0, 1], [2, 0]]))),
    "fmod": ([A, (A, 0.5, 2)], lambda m, x, y: m.fmod(x, y)),
    "fmod(number)": ([A], lambda m, x: x.fmod(0.7)),
    "remainder": ([A, (A, 0.5, 2)], lambda m, x, y: m.remainder(x, y)),
    "remainder(-number)": ([A], lambda m, x: x.remainder(-0.8)),
    "atan2": ([A, (1, 4)], lambda m, y, x: m.atan2(y, x)),
    "arctan2": ([A, A], lambda m, y, x: y.arctan2(x)),
    "hypot": ([A, (3, 1)], lambda m, x, y: m.hypot(x, y)),
    "lerp(number)": ([A, A], lambda m, x, y: m.lerp(x, y, 0.3)),
    "lerp(tensor)": ([A, (1, 4), (A, 0, 1)], lambda m, x, y, w: x.lerp(y, w)),
    "lerp_ on a copy": ([A, A], lambda m, x, y: (x + 0).lerp_(y, 0.75)),
    "addcmul": ([A, A, (1, 4)], lambda m, x, a, b: m.addcmul(x, a, b, value=0.5)),
    "addcdiv": ([A, A, (A, 0.5, 2)], lambda m, x, a, b: x.addcdiv(a, b, value=-2)),
    "addcmul_ on a copy": ([A, A, A], lambda m, x, a, b: (x * 1).addcmul_(a, b)),
    "addcdiv_ on a copy": ([A, A, (A, 0.5, 2)], lambda m, x, a, b: (x * 1).addcdiv_(
        a, b, value=0.1)),
    "clamp_min": ([A], lambda m, x: x.clamp_min(0.2)),
    "torch.clamp_max": ([A], lambda m, x: m.clamp_max(x, -0.1)),
    "clamp_min_ on a copy": ([A], lambda m, x: (x * 1).clamp_min_(0.0)),
    "clamp_max_ on a copy": ([A], lambda m, x: (x * 1).clamp_max_(0.5)),
    "torch.clamp_ on a copy": ([A], lambda m, x: m.clamp_(x * 1, -0.3, 0.3)),
    "clamp(tensor bounds)": ([A, (1, 4), (3, 1)], lambda m, x, lo, hi: x.clamp(
        lo - 1, hi + 1)),
    "frac": ([A], lambda m, x: x.frac()),
    "nan_to_num": ([A], lambda m, x: (x.log()).nan_to_num(nan=0.5, neginf=-3.0)),
    "torch.nan_to_num default": ([A], lambda m, x: m.nan_to_num(x / (x > 0)).clamp(-9, 9)),
    "heaviside": ([A], lambda m, x: m.heaviside(x.detach(), m.tensor([0.5], dtype=x.dtype))
                  * x),
    # activations with their parameters and torch's inplace= (defaults: tests/registry)
    "F.leaky_relu(x, 0.2)": ([A], lambda m, x: m.nn.functional.leaky_relu(x, 0.2)),
    "nn.LeakyReLU(0.1, True)": ([A], lambda m, x: m.nn.LeakyReLU(0.1, True)(x * 1)),
    "F.leaky_relu(inplace=True)": ([A], lambda m, x: m.nn.functional.leaky_relu(
        x * 2, negative_slope=0.3, inplace=True)),
    "F.elu(alpha=0.5)": ([A], lambda m, x: m.nn.functional.elu(x, alpha=0.5)),
    "nn.ELU(2.0)": ([A], lambda m, x: m.nn.ELU(2.0)(x)),
    "torch.selu": ([A], lambda m, x: m.selu(x)),
    "F.celu(x, 2.0)": ([A], lambda m, x: m.nn.functional.celu(x, 2.0)),
    "F.silu(inplace=True)": ([A], lambda m, x: m.nn.functional.silu(x + 0, inplace=True)),
    "nn.SiLU": ([W], lambda m, x: m.nn.SiLU()(x)),
    "nn.Mish": ([A], lambda m, x: m.nn.Mish()(x)),
    "F.relu(inplace=True)": ([A], lambda m, x: m.nn.functional.relu(x * 1, inplace=True)),
    "nn.ReLU(True)": ([A], lambda m, x: m.nn.ReLU(True)(x * 1)),
    "F.hardswish": ([(A, -5, 5)], lambda m, x: m.nn.functional.hardswish(x)),
    "nn.Hardsigmoid": ([(A, -5, 5)], lambda m, x: m.nn.Hardsigmoid()(x)),
    "F.softshrink(0.3)": ([A], lambda m, x: m.nn.functional.softshrink(x, 0.3)),
    "nn.Hardshrink(lambd=1.0)": ([A], lambda m, x: m.nn.Hardshrink(lambd=1.0)(x)),
    "x.hardshrink()": ([A], lambda m, x: x.hardshrink()),
    "F.hardtanh(x, -0.5, 1.5)": ([A], lambda m, x: m.nn.functional.hardtanh(x, -0.5, 1.5)),
    "nn.Hardtanh(min_val=0.1, inplace=True)": ([A], lambda m, x: m.nn.Hardtanh(
        min_val=0.1, inplace=True)(x * 1)),
    "F.relu6(inplace=True)": ([(A, -3, 9)], lambda m, x: m.nn.functional.relu6(
        x * 1, inplace=True)),
    "nn.ReLU6 of a long tensor": ([], lambda m: m.nn.ReLU6()(_long(m, [-3, 2, 9]))),
    "F.logsigmoid": ([(A, -30, 30)], lambda m, x: m.nn.functional.logsigmoid(x)),
    "nn.Softsign, nn.Tanhshrink": ([A], lambda m, x: m.nn.Tanhshrink()(m.nn.Softsign()(x))),
    # reductions that pick
    "median()": ([(3, 5)], lambda m, x: x.median()),
    "median(dim)": ([(3, 5)], lambda m, x: m.median(x, 1)),
    "median(0, keepdim)": ([(4, 3)], lambda m, x: x.median(0, keepdim=True)),
    "kthvalue": ([(3, 5)], lambda m, x: x.kthvalue(2)),
    "kthvalue(dim=0)": ([(4, 3)], lambda m, x: m.kthvalue(x, 4, dim=0, keepdim=True)),
    "cummax": ([(3, 5)], lambda m, x: x.cummax(1)),
    "torch.cummin(dim=0)": ([W], lambda m, x: m.cummin(x, dim=0)),
    "cummax with ties": ([], lambda m: m.cummax(m.tensor([1.0, 3, 3, 2, 5, 5]), 0)),
    "aminmax": ([A], lambda m, x: m.aminmax(x)),
    "aminmax(dim)": ([A], lambda m, x: x.aminmax(dim=1, keepdim=True)),
    # functions of no gradient
    "unique": ([], lambda m: m.unique(m.tensor([3, 1, 2, 3, 1, 7]))),
    "unique(return_inverse, return_counts)": ([], lambda m: m.tensor(
        [[2.5, 1.0], [1.0, 2.5], [0.5, 1.0]]).unique(return_inverse=True, return_counts=True)),
    "unique(dim=0)": ([], lambda m: m.unique(m.tensor([[1, 2], [0, 5], [1, 2]]), dim=0,
                                               return_inverse=True)),
    "unique(sorted=False) of floats": ([], lambda m: m.unique(m.tensor([2.0, -1.0, 2.0]),
                                                              sorted=False)),
    "cdist": ([(3, 2), (4, 2)], lambda m, a, b: m.cdist(a, b)),
    "cdist p=1 batched": ([(2, 3, 2), (2, 4, 2)], lambda m, a, b: m.cdist(a, b, p=1.0)),
    "triu_indices": ([], lambda m: m.triu_indices(3, 4, 1)),
    "tril_indices": ([], lambda m: m.tril_indices(4, 3, -1)),
    "meshgrid ij": ([(3,), (2,)], lambda m, a, b: m.meshgrid(a, b, indexing="ij")),
    "meshgrid xy": ([(3,), (2,)], lambda m, a, b: m.meshgrid(a, b, indexing="xy")),
    "searchsorted": ([], lambda m: m.searchsorted(m.tensor([1.0, 2, 3, 5]),
                                                    m.tensor([[0.5, 2], [3, 9]]))),
    "searchsorted right": ([], lambda m: m.searchsorted(m.tensor([1.0, 2, 2, 5]),
                                                          m.tensor([2.0, 5]), right=True)),
    "bucketize": ([], lambda m: m.bucketize(m.tensor([0.5, 2, 7]), m.tensor([1.0, 2, 5]))),
    "torch.lt/gt/eq functions": ([A, A], lambda m, x, y: m.stack(
        [m.lt(x, y), m.gt(x, 0), m.le(x, y), m.ge(y, 0.1), m.eq(x, x), m.ne(x, y)])),
    "torch.zero_ / fill_": ([A], lambda m, x: m.fill_(m.zero_(x * 1), 2.5) + x),
}

# bad calls: the same exception type as torch's
ERRORS = {
    "scatter index out of range": lambda m: m.zeros(3).scatter(0, _long(m, [3]), m.ones(1)),
    "scatter index of other ndim": lambda m: m.zeros(3, 2).scatter(0, _long(m, [0]),
                                                                    m.ones(3, 2)),
    "index_add 2-d index": lambda m: m.zeros(3).index_add(0, _long(m, [[0]]), m.ones(1)),
    "masked_select float mask": lambda m: m.zeros(3).masked_select(m.ones(3)),
    "take out of range": lambda m: m.zeros(2, 2).take(_long(m, [4])),
    "narrow past the end": lambda m: m.zeros(3).narrow(0, 2, 2),
    "select out of range": lambda m: m.zeros(2, 3).select(1, 3),
    "fliplr of 1-d": lambda m: m.zeros(3).fliplr(),
    "rot90 same dims": lambda m: m.zeros(2, 2).rot90(1, (0, 0)),
    "hsplit not divisible": lambda m: m.zeros(2, 5).hsplit(2),
    "vsplit of 1-d": lambda m: m.zeros(4).vsplit(2),
    "mv of a matrix": lambda m: m.zeros(2, 3).mv(m.zeros(3, 1)),
    "addmm shapes": lambda m: m.addmm(m.zeros(2, 2), m.zeros(2, 3), m.zeros(2, 2)),
    "baddbmm 2-d": lambda m: m.baddbmm(m.zeros(2, 2, 2), m.zeros(2, 2), m.zeros(2, 2)),
    "cross no size-3 dim": lambda m: m.cross(m.zeros(2, 2), m.zeros(2, 2), dim=1),
    "cross of other ndim": lambda m: m.cross(m.zeros(2, 3), m.zeros(3), dim=-1),
    "kthvalue k too large": lambda m: m.zeros(3).kthvalue(4),
    "repeat_interleave negative": lambda m: m.zeros(3).repeat_interleave(-1),
    "div bad rounding_mode": lambda m: m.ones(2).div(2, rounding_mode="round"),
    "& of floats": lambda m: m.ones(2) & m.ones(2),
    "bitwise_not of floats": lambda m: m.ones(2).bitwise_not(),
    "trace of a 3-d tensor": lambda m: m.zeros(2, 2, 2).trace(),
    "LeakyReLU too many arguments": lambda m: m.nn.LeakyReLU(0.1, True, 3),
    "leaky_relu of a long tensor": lambda m: m.nn.functional.leaky_relu(_long(m, [1, -1])),
    "unflatten wrong sizes": lambda m: m.zeros(6).unflatten(0, (4, -1)),
}


def _tensors(value):
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return [value]


def _input(m, array, dtype_name):
    t = m.tensor(array.tolist(), dtype=getattr(m, dtype_name))
    return t.requires_grad_()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_op_twins_torch(name, dtype, seed):
    specs, fn = OPS[name]
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        shape, low, high = spec if isinstance(spec[0], tuple) else (spec, -2.0, 2.0)
        arrays.append(rng.uniform(low, high, shape).astype(dtype))
    dtype_name = np.dtype(dtype).name
    theirs = [_input(torch, a, dtype_name) for a in arrays]
    ours = [_input(mt, a, dtype_name) for a in arrays]
    expected, got = _tensors(fn(torch, *theirs)), _tensors(fn(mt, *ours))
    assert len(got) == len(expected)
    tol = TOLERANCE[dtype]
    loss_theirs, loss_ours = 0, 0
    for e, g in zip(expected, got, strict=True):
        assert tuple(g.shape) == tuple(e.shape)
        assert str(g.dtype).removeprefix("torch.") == str(e.dtype).removeprefix("torch.")
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), **tol,
                                   equal_nan=True)
        if e.requires_grad:
            upstream = rng.standard_normal(tuple(e.shape)).astype(dtype)
            loss_theirs = loss_theirs + (e * torch.from_numpy(upstream)).sum()
            loss_ours = loss_ours + (g * mt.from_numpy(upstream)).sum()
    if not isinstance(loss_theirs, int):
        loss_theirs.backward()
        loss_ours.backward()
    for i, (t, o) in enumerate(zip(theirs, ours, strict=True)):
        want = np.zeros(t.shape, dtype) if t.grad is None else t.grad.numpy()
        have = np.zeros(tuple(o.shape), dtype) if o.grad is None else o.grad.numpy()
        assert have.dtype == want.dtype, f"gradient of input {i} changed dtype"
        np.testing.assert_allclose(have, want, **tol, err_msg=f"gradient of input {i}")


def assert_raises_as_torch(call):
    """call(torch) and call(micrograd.torch) both raise, ours an instance of torch's type."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(mt)
    assert isinstance(ours.value, theirs.type), (
        f"torch raised {theirs.type.__name__}: {theirs.value}; we raised "
        f"{type(ours.value).__name__}: {ours.value}")


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_call_raises_as_torch(name):
    assert_raises_as_torch(ERRORS[name])
