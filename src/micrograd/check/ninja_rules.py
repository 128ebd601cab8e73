"""The backprop-ninja gradients as hypotheses: each manual gradient of makemore part 4, the
rule that gives it from its upstream gradients, and what each classic mistake would give.

Everything is computed here, in float64 numpy, from the forward tensors of the learner's own
run (`Forward`). A rule takes the upstream gradients as an argument, so the same rule gives
the right gradient (from the right upstream ones) and what the learner's line gives from the
learner's own upstream gradients: a gradient that is wrong only because an earlier one is
wrong is told apart from a new mistake. The mistakes are hypotheses too: a learner's tensor
is named after the mistake whose value it equals, never after the text of its line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from micrograd.check.ninja_source import FORWARD

Arrays = Mapping[str, np.ndarray]

# the forward tensors the rules read (all of the lecture's but loss and bnmeani)
NEEDED = tuple(name for name in FORWARD if name not in ("loss", "bnmeani"))


class Forward:
    """The forward tensors of one run, as float64 (indices as int64), plus what follows."""

    def __init__(self, tensors: Arrays):
        missing = [name for name in NEEDED if name not in tensors]
        if missing:
            raise KeyError(", ".join(missing))
        self.t = {name: np.asarray(tensors[name], dtype=np.int64 if name in ("Xb", "Yb")
                                   else np.float64) for name in NEEDED}
        self.n = int(self.t["logprobs"].shape[0])
        self.rows = np.arange(self.n)
        # Bessel's correction as the learner's forward pass did it: n - 1 (the lecture) or n
        sums = self.t["bndiff2"].sum(0, keepdims=True)
        by_n1 = np.abs(sums / (self.n - 1) - self.t["bnvar"]).max()
        by_n = np.abs(sums / self.n - self.t["bnvar"]).max()
        self.bessel = self.n - 1 if by_n1 <= by_n else self.n

    def __getitem__(self, name: str) -> np.ndarray:
        return self.t[name]

    def one_hot(self, index: np.ndarray, columns: int) -> np.ndarray:
        out = np.zeros((len(index), columns))
        out[np.arange(len(index)), index] = 1.0
        return out

    def argmax_one_hot(self) -> np.ndarray:
        logits = self.t["logits"]
        return self.one_hot(logits.argmax(1), logits.shape[1])

    def label_one_hot(self) -> np.ndarray:
        return self.one_hot(self.t["Yb"], self.t["logits"].shape[1])

    def softmax(self) -> np.ndarray:
        logits = self.t["logits"]
        e = np.exp(logits - logits.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)


Rule = Callable[[Forward, Arrays], np.ndarray]


@dataclass(frozen=True)
class Mistake:
    """A classic mistake: its diagnosis id, what the learner's tensor then equals, its value
    (from the forward tensors and the upstream gradients), and which write is wrong
    ("last": the last line writing the gradient; "assign": the `=` that should be `+=`)."""

    diagnosis: str
    says: str
    value: Rule
    line: str = "last"


@dataclass(frozen=True)
class Gradient:
    """One manual gradient: d<var>, computed from `upstream` by `rule` (the chain rule)."""

    var: str
    upstream: tuple[str, ...]
    rule: Rule
    fix: str
    mistakes: tuple[Mistake, ...] = ()
    fused: bool = False  # the one-expression exercise (cross-entropy, BatchNorm)
    extra: tuple[str, ...] = field(default=())  # other gradients a mistake may read

    @property
    def name(self) -> str:
        return "d" + self.var


def _scatter(f: Forward, demb: np.ndarray, accumulate: bool) -> np.ndarray:
    dC = np.zeros_like(f["C"])
    rows = f["Xb"].reshape(-1)
    flat = demb.reshape(len(rows), -1)
    if accumulate:
        np.add.at(dC, rows, flat)
    else:
        dC[rows] = flat  # numpy (like torch on CPU) keeps the last write of a repeated row
    return dC


def _bn_fused(f: Forward, g: np.ndarray, scale: float = 1.0, bessel: float | None = None,
              inv_power: float = 1.0, last_raw: bool = True, mean_term: bool = True,
              ) -> np.ndarray:
    """BatchNorm's backward in one expression; the keywords plant its classic mistakes."""
    n, raw, inv = f.n, f["bnraw"], f["bnvar_inv"]
    factor = n / f.bessel if bessel is None else bessel
    last = raw * (g * raw).sum(0) if last_raw else raw * (g * f["bndiff"]).sum(0)
    mean = g.sum(0) if mean_term else 0.0
    return f["bngain"] * inv ** inv_power * scale / n * (n * g - mean - factor * last)


def _unsummed(says: str, value: Rule) -> Mistake:
    return Mistake("unsummed-broadcast", says, value)


def _matmul(x: str, w: str, out: str, *weight_mistakes: Mistake) -> tuple[Gradient, ...]:
    """dx and dw of out = x @ w (dx = dout @ w.T, dw = x.T @ dout), each with its classic
    mistakes: the right numbers transposed, and dx from the weight's gradient instead of
    the weight; `weight_mistakes` are dw's own others."""
    d_out, d_w = "d" + out, "d" + w
    dx = Gradient(x, (d_out,), lambda f, g: g[d_out] @ f[w].T, f"d{x} = {d_out} @ {w}.T",
                  (Mistake("matmul-grad-transposed", f"({d_out} @ {w}.T).T: the right numbers, "
                           "transposed", lambda f, g: (g[d_out] @ f[w].T).T),
                   Mistake("matmul-wrong-operand", f"{d_out} @ {d_w}.T: the gradient {d_w} "
                           f"where the weight {w} belongs", lambda f, g: g[d_out] @ g[d_w].T)),
                  extra=(d_w,))
    dw = Gradient(w, (d_out,), lambda f, g: f[x].T @ g[d_out], f"{d_w} = {x}.T @ {d_out}",
                  (Mistake("matmul-grad-transposed", f"{d_out}.T @ {x}: the right numbers, "
                           "transposed", lambda f, g: g[d_out].T @ f[x]), *weight_mistakes))
    return dx, dw


def _broadcast_factor(a: str, b: str, out: str, product: str) -> Gradient:
    """da of out = a * b (`product`, as the forward writes it) where a, one row, was
    broadcast over the batch: (b * dout).sum(0, keepdim=True); its mistakes are the missing
    sum and the factor's own value in place of the other's."""
    d_out = "d" + out
    return Gradient(a, (d_out,), lambda f, g: (f[b] * g[d_out]).sum(0, keepdims=True),
                    f"d{a} = ({b} * {d_out}).sum(0, keepdim=True)",
                    (_unsummed(f"{b} * {d_out} without the .sum(0, keepdim=True)",
                               lambda f, g: f[b] * g[d_out]),
                     Mistake("product-operand-swapped", f"{a} * {d_out}: the derivative of "
                             f"{product} with respect to {a} is {b}",
                             lambda f, g: (f[a] * g[d_out]).sum(0, keepdims=True))))


def _branch(says: str, value: Rule) -> Mistake:
    return Mistake("branch-overwritten", says, value, line="assign")


def _bessel_mistake(f: Forward, g: Arrays) -> np.ndarray:
    other = f.n if f.bessel == f.n - 1 else f.n - 1
    return np.ones_like(f["bndiff2"]) * g["dbnvar"] / other


GRADIENTS: tuple[Gradient, ...] = (
    Gradient("logprobs", (), lambda f, g: _label_grad(f, -1.0 / f.n),
             "dlogprobs = torch.zeros_like(logprobs); dlogprobs[range(n), Yb] = -1.0/n",
             (Mistake("dlogprobs-sign", "+1/n at each label: the minus sign of the loss "
                      "(loss = -mean(logprobs at the labels)) is lost",
                      lambda f, g: _label_grad(f, 1.0 / f.n)),
              Mistake("mean-loss-missing-1/n", "-1 at each label: the 1/n of the mean over "
                      "the batch is lost", lambda f, g: _label_grad(f, -1.0)),
              Mistake("label-index-missing", "-1/n everywhere: only the logprobs at the "
                      "labels Yb are in the loss",
                      lambda f, g: np.full_like(f["logprobs"], -1.0 / f.n)))),
    Gradient("probs", ("dlogprobs",), lambda f, g: g["dlogprobs"] / f["probs"],
             "dprobs = (1.0 / probs) * dlogprobs",
             (Mistake("upstream-not-multiplied", "1/probs: the local derivative alone, not "
                      "multiplied by dlogprobs", lambda f, g: 1.0 / f["probs"]),
              Mistake("log-derivative", "dlogprobs * probs: d log(x)/dx is 1/x, not x",
                      lambda f, g: g["dlogprobs"] * f["probs"]))),
    Gradient("counts_sum_inv", ("dprobs",),
             lambda f, g: (f["counts"] * g["dprobs"]).sum(1, keepdims=True),
             "dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)",
             (_unsummed("counts * dprobs without the .sum(1, keepdim=True): counts_sum_inv "
                        "(32, 1) was broadcast across the columns, so its gradient sums them",
                        lambda f, g: f["counts"] * g["dprobs"]),)),
    Gradient("counts_sum", ("dcounts_sum_inv",),
             lambda f, g: -f["counts_sum"] ** -2 * g["dcounts_sum_inv"],
             "dcounts_sum = (-counts_sum**-2) * dcounts_sum_inv",
             (Mistake("power-rule-sign", "+counts_sum**-2 * dcounts_sum_inv: d(x**-1)/dx is "
                      "-x**-2, with a minus", lambda f, g: f["counts_sum"] ** -2
                      * g["dcounts_sum_inv"]),
              Mistake("power-rule-exponent", "-counts_sum**-1 * dcounts_sum_inv: the power "
                      "rule lowers the exponent: d(x**-1)/dx = -1 * x**-2",
                      lambda f, g: -f["counts_sum"] ** -1 * g["dcounts_sum_inv"]))),
    Gradient("counts", ("dprobs", "dcounts_sum"),
             lambda f, g: f["counts_sum_inv"] * g["dprobs"] + g["dcounts_sum"],
             "dcounts = counts_sum_inv * dprobs\n"
             "dcounts += torch.ones_like(counts) * dcounts_sum   # +=: counts is used twice",
             (_branch("counts_sum_inv * dprobs alone: counts is used twice (in probs and in "
                      "counts_sum) and only the probs branch is in it",
                      lambda f, g: f["counts_sum_inv"] * g["dprobs"]),
              _branch("torch.ones_like(counts) * dcounts_sum alone: counts is used twice and "
                      "the second branch overwrote the first (= where += was needed)",
                      lambda f, g: np.ones_like(f["counts"]) * g["dcounts_sum"]))),
    Gradient("norm_logits", ("dcounts",), lambda f, g: f["counts"] * g["dcounts"],
             "dnorm_logits = counts * dcounts   # d exp(x)/dx = exp(x) = counts",
             (Mistake("upstream-not-multiplied", "counts: the local derivative alone, not "
                      "multiplied by dcounts", lambda f, g: f["counts"]),
              Mistake("exp-derivative", "norm_logits * dcounts: d exp(x)/dx is exp(x) "
                      "(counts), not x", lambda f, g: f["norm_logits"] * g["dcounts"]))),
    Gradient("logit_maxes", ("dnorm_logits",),
             lambda f, g: -g["dnorm_logits"].sum(1, keepdims=True),
             "dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)",
             (_unsummed("-dnorm_logits without the .sum(1, keepdim=True)",
                        lambda f, g: -g["dnorm_logits"]),)),
    Gradient("logits", ("dnorm_logits", "dlogit_maxes"),
             lambda f, g: g["dnorm_logits"] + f.argmax_one_hot() * g["dlogit_maxes"],
             "dlogits = dnorm_logits.clone()\n"
             "dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * "
             "dlogit_maxes",
             (_branch("F.one_hot(argmax) * dlogit_maxes alone: logits is used twice (in "
                      "norm_logits and in logit_maxes) and the second branch overwrote the "
                      "first (= where += was needed)",
                      lambda f, g: f.argmax_one_hot() * g["dlogit_maxes"]),)),
    Gradient("logits", (), lambda f, g: (f.softmax() - f.label_one_hot()) / f.n,
             "dlogits = F.softmax(logits, 1); dlogits[range(n), Yb] -= 1; dlogits /= n",
             (Mistake("ce-label-term-missing", "softmax(logits)/n: the -1 at each label "
                      "(the derivative of -logits[Yb]) is missing",
                      lambda f, g: f.softmax() / f.n),
              Mistake("mean-loss-missing-1/n", "softmax(logits) - one_hot(Yb): the /n of the "
                      "mean over the batch is missing",
                      lambda f, g: f.softmax() - f.label_one_hot()),
              Mistake("ce-sign", "(one_hot(Yb) - softmax(logits))/n: the sign is flipped",
                      lambda f, g: (f.label_one_hot() - f.softmax()) / f.n)),
             fused=True),
    *_matmul("h", "W2", "logits",
             Mistake("matmul-wrong-operand", "hpreact.T @ dlogits: the matmul's input is h "
                     "(after tanh), not hpreact", lambda f, g: f["hpreact"].T @ g["dlogits"])),
    Gradient("b2", ("dlogits",), lambda f, g: g["dlogits"].sum(0), "db2 = dlogits.sum(0)",
             (_unsummed("dlogits without the .sum(0): b2 (27,) was broadcast across the "
                        "batch rows, so its gradient sums them", lambda f, g: g["dlogits"]),)),
    Gradient("hpreact", ("dh",), lambda f, g: (1.0 - f["h"] ** 2) * g["dh"],
             "dhpreact = (1.0 - h**2) * dh",
             (Mistake("tanh-grad-one-minus-h", "(1 - h) * dh: tanh's derivative is 1 - h**2",
                      lambda f, g: (1.0 - f["h"]) * g["dh"]),
              Mistake("tanh-grad-from-preactivation", "(1 - hpreact**2) * dh: tanh's "
                      "derivative is 1 - tanh(x)**2 = 1 - h**2, from the output h",
                      lambda f, g: (1.0 - f["hpreact"] ** 2) * g["dh"]),
              Mistake("upstream-not-multiplied", "1 - h**2: the local derivative alone, not "
                      "multiplied by dh", lambda f, g: 1.0 - f["h"] ** 2))),
    _broadcast_factor("bngain", "bnraw", "hpreact", "bngain * bnraw"),
    Gradient("bnbias", ("dhpreact",), lambda f, g: g["dhpreact"].sum(0, keepdims=True),
             "dbnbias = dhpreact.sum(0, keepdim=True)",
             (_unsummed("dhpreact without the .sum(0, keepdim=True): bnbias (1, 64) was "
                        "broadcast across the batch rows", lambda f, g: g["dhpreact"]),)),
    Gradient("bnraw", ("dhpreact",), lambda f, g: f["bngain"] * g["dhpreact"],
             "dbnraw = bngain * dhpreact",
             (Mistake("product-operand-swapped", "bnraw * dhpreact: the derivative of "
                      "bngain * bnraw with respect to bnraw is bngain",
                      lambda f, g: f["bnraw"] * g["dhpreact"]),)),
    _broadcast_factor("bnvar_inv", "bndiff", "bnraw", "bndiff * bnvar_inv"),
    Gradient("bnvar", ("dbnvar_inv",),
             lambda f, g: -0.5 * f["bnvar_inv"] ** 3 * g["dbnvar_inv"],
             "dbnvar = (-0.5*(bnvar + 1e-5)**-1.5) * dbnvar_inv",
             (Mistake("power-rule-sign", "+0.5*(bnvar + 1e-5)**-1.5 * dbnvar_inv: "
                      "d(x**-0.5)/dx = -0.5 * x**-1.5, with a minus",
                      lambda f, g: 0.5 * f["bnvar_inv"] ** 3 * g["dbnvar_inv"]),
              Mistake("power-rule-exponent", "-0.5*(bnvar + 1e-5)**-0.5 * dbnvar_inv: the "
                      "power rule lowers the exponent to -1.5",
                      lambda f, g: -0.5 * f["bnvar_inv"] * g["dbnvar_inv"]))),
    Gradient("bndiff2", ("dbnvar",),
             lambda f, g: np.ones_like(f["bndiff2"]) * g["dbnvar"] / f.bessel,
             "dbndiff2 = (1.0/(n-1))*torch.ones_like(bndiff2) * dbnvar   # as the forward's "
             "bnvar: 1/(n-1)",
             (Mistake("bessel-mismatch", "the other Bessel factor: your forward pass "
                      "averaged bndiff2 with a different divisor (n vs n - 1) than your "
                      "backward uses", _bessel_mistake),)),
    Gradient("bndiff", ("dbnraw", "dbndiff2"),
             lambda f, g: f["bnvar_inv"] * g["dbnraw"] + 2.0 * f["bndiff"] * g["dbndiff2"],
             "dbndiff = bnvar_inv * dbnraw\n"
             "dbndiff += (2*bndiff) * dbndiff2   # +=: bndiff is used twice",
             (_branch("bnvar_inv * dbnraw alone: bndiff is used twice (in bnraw and in "
                      "bndiff2) and only the bnraw branch is in it",
                      lambda f, g: f["bnvar_inv"] * g["dbnraw"]),
              _branch("(2*bndiff) * dbndiff2 alone: bndiff is used twice and the second "
                      "branch overwrote the first (= where += was needed)",
                      lambda f, g: 2.0 * f["bndiff"] * g["dbndiff2"]),
              Mistake("square-derivative", "bndiff * dbndiff2 in the second branch: "
                      "d(x**2)/dx is 2*x", lambda f, g: f["bnvar_inv"] * g["dbnraw"]
                      + f["bndiff"] * g["dbndiff2"]))),
    Gradient("bnmeani", ("dbndiff",), lambda f, g: -g["dbndiff"].sum(0, keepdims=True),
             "dbnmeani = (-dbndiff).sum(0, keepdim=True)",
             (Mistake("subtraction-sign", "+dbndiff.sum(0): bndiff = hprebn - bnmeani, so "
                      "bnmeani's local derivative is -1",
                      lambda f, g: g["dbndiff"].sum(0, keepdims=True)),
              _unsummed("-dbndiff without the .sum(0)", lambda f, g: -g["dbndiff"]))),
    Gradient("hprebn", ("dbndiff", "dbnmeani"),
             lambda f, g: g["dbndiff"] + g["dbnmeani"] / f.n,
             "dhprebn = dbndiff.clone()\n"
             "dhprebn += 1.0/n * (torch.ones_like(hprebn) * dbnmeani)   # +=: used twice",
             (_branch("dbndiff alone: hprebn is used twice (in bndiff and in bnmeani) and "
                      "only the bndiff branch is in it", lambda f, g: g["dbndiff"] + 0.0),
              _branch("1.0/n * dbnmeani alone: hprebn is used twice and the second branch "
                      "overwrote the first (= where += was needed)",
                      lambda f, g: np.ones_like(f["hprebn"]) * g["dbnmeani"] / f.n),
              Mistake("mean-grad-missing-1/n", "dbndiff + dbnmeani: bnmeani is 1/n * the sum, "
                      "so its branch needs the 1/n", lambda f, g: g["dbndiff"]
                      + g["dbnmeani"] + 0.0 * f["hprebn"]))),
    Gradient("hprebn", ("dhpreact",), lambda f, g: _bn_fused(f, g["dhpreact"]),
             "dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) "
             "- n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))",
             (Mistake("bn-bessel-factor", "the factor of the last term does not match the "
                      "forward's variance: n/(n-1) when it divides by n - 1 (Bessel's "
                      "correction), 1 when it divides by n", lambda f, g: _bn_fused(
                          f, g["dhpreact"], bessel=1.0 if f.bessel == f.n - 1
                          else f.n / (f.n - 1))),
              Mistake("bn-missing-1/n", "the /n in front is missing",
                      lambda f, g: _bn_fused(f, g["dhpreact"], scale=f.n)),
              Mistake("bn-bnvar_inv-power", "bnvar_inv**2 in front: the whole expression "
                      "carries bnvar_inv once", lambda f, g: _bn_fused(f, g["dhpreact"],
                                                                       inv_power=2.0)),
              Mistake("bn-bnvar_inv-power", "bnvar_inv missing in front",
                      lambda f, g: _bn_fused(f, g["dhpreact"], inv_power=0.0)),
              Mistake("bn-bnvar_inv-power", "the last term needs bnvar_inv squared "
                      "(bnraw twice, or bndiff * bnvar_inv**2); one power is missing",
                      lambda f, g: _bn_fused(f, g["dhpreact"], last_raw=False)),
              Mistake("bn-mean-term-missing", "the - dhpreact.sum(0) term (from the mean) "
                      "is missing", lambda f, g: _bn_fused(f, g["dhpreact"], mean_term=False))),
             fused=True),
    *_matmul("embcat", "W1", "hprebn"),
    Gradient("b1", ("dhprebn",), lambda f, g: g["dhprebn"].sum(0), "db1 = dhprebn.sum(0)",
             (_unsummed("dhprebn without the .sum(0): b1 was broadcast across the batch rows",
                        lambda f, g: g["dhprebn"]),)),
    Gradient("emb", ("dembcat",), lambda f, g: g["dembcat"].reshape(f["emb"].shape),
             "demb = dembcat.view(emb.shape)"),
    Gradient("C", ("demb",), lambda f, g: _scatter(f, g["demb"], True),
             "dC = torch.zeros_like(C)\n"
             "for k in range(Xb.shape[0]):\n"
             "    for j in range(Xb.shape[1]):\n"
             "        dC[Xb[k, j]] += demb[k, j]   # +=: a row of C used twice adds up",
             (Mistake("embedding-scatter-overwrite", "each row of C holds one demb vector "
                      "only (the last write wins), not the sum over every position that "
                      "used it", lambda f, g: _scatter(f, g["demb"], False)),)),
)

ORDER = tuple(dict.fromkeys(g.name for g in GRADIENTS))  # backward order, each name once
VARIABLES = tuple(name[1:] for name in ORDER)


def _label_grad(f: Forward, value: float) -> np.ndarray:
    out = np.zeros_like(f["logprobs"])
    out[f.rows, f["Yb"]] = value
    return out


def rules_for(name: str) -> list[Gradient]:
    """The step-by-step rule first, then the one-expression rule (dlogits, dhprebn)."""
    return [g for g in GRADIENTS if g.name == name]


def true_gradients(f: Forward) -> dict[str, np.ndarray]:
    """Every gradient of the lecture's backward pass, from the right upstream ones."""
    out: dict[str, np.ndarray] = {}
    for gradient in GRADIENTS:
        if gradient.name not in out:
            out[gradient.name] = gradient.rule(f, out)
    return out


def close(a: np.ndarray, b: np.ndarray, noise: float = 0.0) -> bool:
    """Equal up to float32 rounding of a float64 hypothesis: the same shape and every
    number within 1e-3 relative, plus 1e-4 of the tensor's largest magnitude (or `noise`,
    the rounding noise of the gradients it was computed from, when that is larger)."""
    if a.shape != b.shape:
        return False
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return bool(np.array_equal(a, b, equal_nan=True))
    scale = max(float(np.abs(a).max(initial=0.0)), float(np.abs(b).max(initial=0.0)), 1e-30)
    return bool(np.allclose(a, b, rtol=1e-3, atol=max(1e-4 * scale, noise)))


def evaluate(rule: Rule, f: Forward, grads: Arrays) -> np.ndarray | None:
    """A rule's value, or None when the learner's upstream shapes make it impossible."""
    try:
        with np.errstate(all="ignore"):
            value = np.asarray(rule(f, grads), dtype=np.float64)
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return value
