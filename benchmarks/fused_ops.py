"""Fused ops against their composites: median of 7 rounds of best-of-5 timeit (µs)."""

import statistics
import sys
import timeit

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "src"))
import micrograd.tensors as T
from micrograd.tensors import functional as F
from micrograd.tensors.function import binary, unary
from micrograd.tensors.ops import elementwise

T.keep_freed_memory()  # as the benchmarks do: no page faults per step
rng = np.random.default_rng(0)
f32 = np.float32


def t(shape, grad=True):
    return T.Tensor(rng.standard_normal(shape).astype(f32), requires_grad=grad)


def fb(make):
    def run():
        out = make()
        out.backward(np.ones(out.shape, out.dtype))

    return run


def med(fn, number):
    rounds = []
    for _ in range(7):
        rounds.append(min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6)
    return statistics.median(rounds)


x2000 = t(2000)
def generic():
    return binary(
    x2000, 3, "**", elementwise.raise_to_power, elementwise._pow_da, elementwise._pow_db
)
cases = []
cases.append(("x**3, 2000 f32, fwd+bwd", fb(lambda: x2000**3), fb(generic)))
cases.append(
    (
        "x**2, 2000 f32, fwd+bwd",
        fb(lambda: x2000**2),
        fb(
            lambda: binary(
                x2000, 2, "**", elementwise.raise_to_power, elementwise._pow_da, elementwise._pow_db
            )
        ),
    )
)
h = t((32, 200))


def var_comp():
    m = h.mean(0, keepdim=True)
    d = h - m
    return (d * d).sum(0, keepdim=True) / (h.shape[0] - 1)


cases.append(("var(0), (32,200), fwd+bwd", fb(lambda: h.var(0, keepdim=True)), fb(var_comp)))
cases.append(
    ("std(0), (32,200), fwd+bwd", fb(lambda: h.std(0, keepdim=True)), fb(lambda: var_comp() ** 0.5))
)
x = t((512, 64))
w = t(64)
b = t(64)


def ln_comp():
    m = x.mean(-1, keepdim=True)
    d = x - m
    v = (d * d).mean(-1, keepdim=True)
    return d / (v + 1e-5).sqrt() * w + b


cases.append(("layer_norm (512,64)", fb(lambda: F.layer_norm(x, (64,), w, b)), fb(ln_comp)))
g2 = t(200)
b2 = t(200)
rm, rv = T.zeros(200, dtype=f32), T.ones(200, dtype=f32)


def bn_comp():
    m = h.mean(0, keepdim=True)
    d = h - m
    v = (d * d).mean(0, keepdim=True)
    return g2 * d / (v + 1e-5).sqrt() + b2


cases.append(
    ("batch_norm train (32,200)", fb(lambda: F.batch_norm(h, rm, rv, g2, b2, True)), fb(bn_comp))
)
C = t((27, 10))
X = T.tensor(rng.integers(0, 27, (32, 3)))


def add_at_lookup(table, rows):  # C[X] as it was: gradient by np.add.at
    def vjp(g):
        full = np.zeros(table.shape, g.dtype)
        np.add.at(full, rows._array, g)
        return full

    return unary(table, table._array[rows._array], "index", vjp)


cases.append(("C[X] (27,10)[32x3]", fb(lambda: C[X]), fb(lambda: add_at_lookup(C, X))))
C2 = t((65, 64))
X2 = T.tensor(rng.integers(0, 65, (16, 32)))
cases.append(
    ("embedding (65,64)[16x32]", fb(lambda: F.embedding(X2, C2)), fb(lambda: add_at_lookup(C2, X2)))
)
C3 = t((1000, 64))
X3 = T.tensor(rng.integers(0, 1000, (64, 64)))
cases.append(
    (
        "embedding (1000,64)[64x64]",
        fb(lambda: F.embedding(X3, C3)),
        fb(lambda: add_at_lookup(C3, X3)),
    )
)
gx = t((512, 256))


def gelu_comp():
    return 0.5 * gx * (1 + T.erf(gx * (1 / 2**0.5)))


cases.append(("gelu (512,256)", fb(lambda: F.gelu(gx)), fb(gelu_comp)))
cases.append(
    (
        "gelu tanh (512,256)",
        fb(lambda: F.gelu(gx, approximate="tanh")),
        fb(lambda: 0.5 * gx * (1 + (0.7978845608 * (gx + 0.044715 * gx**3)).tanh())),
    )
)
lg = t((32, 27))
tg = T.tensor(rng.integers(0, 27, 32))
cases.append(
    (
        "cross_entropy smoothing (32,27)",
        fb(lambda: F.cross_entropy(lg, tg, label_smoothing=0.1)),
        fb(
            lambda: 0.9 * F.nll_loss(lg.log_softmax(1), tg) - 0.1 * lg.log_softmax(1).mean(1).mean()
        ),
    )
)
print(f"{'case':34s} {'fused':>9s} {'composite':>10s} {'speedup':>8s}")
for name, fused, comp in cases:
    n = 200
    a, c = med(fused, n), med(comp, n)
    print(f"{name:34s} {a:9.1f} {c:10.1f} {c / a:7.1f}x")
