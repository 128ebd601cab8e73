"""The named mistakes of the backprop-ninja exercise (makemore part 4), for `explain()`.

Each entry says what the mistake is in general; the report adds, per gradient, what the
learner's tensor equals and the line to write (`ninja_rules.Gradient.fix`).
"""

from __future__ import annotations

from micrograd.check.diagnosis import Diagnosis

LECTURE = "makemore part 4, Becoming a Backprop Ninja"
NINJA_CATALOG: dict[str, Diagnosis] = {}


def _add(id: str, title: str, explanation: str, fix: str, where: str = "") -> None:
    NINJA_CATALOG[id] = Diagnosis(id, title, " ".join(explanation.split()), "", fix,
                                  f"{LECTURE}{', ' + where if where else ''}")


_add("unsummed-broadcast", "missing sum over a broadcast dimension",
     """In the forward pass this tensor was broadcast: one row (or column) of it was used for
     every row of the batch. Its gradient is the sum of the gradients of all those copies,
     so the product must be summed over the broadcast dimension, back to the tensor's own
     shape.""", "sum over the dimension that was broadcast, keeping it: .sum(0, keepdim=True)")
_add("keepdim-lost", "keepdim lost: the right numbers in a shape that broadcasts wrongly",
     """The numbers are right but a size-1 dimension is gone: (32,) instead of (32, 1). In the
     next gradient (32,) broadcasts against a (32, 1) tensor into (32, 32), and everything
     after it is wrong or raises.""", "sum with keepdim=True so the gradient keeps the shape "
     "of its tensor")
_add("keepdim-extra", "one dimension too many",
     """The numbers are right but the gradient has an extra size-1 dimension ((1, 27) for a
     (27,) bias). cmp accepts it because it broadcasts; an update p.data += -lr * grad does
     not.""", "sum without keepdim where the tensor has no such dimension: .sum(0)")
_add("branch-overwritten", "= instead of +=: a tensor used twice keeps one branch",
     """This tensor feeds two places in the forward pass, so its gradient is the sum of two
     contributions. One of the lines assigns (=) where it should add (+=), or the second
     contribution was never added: the learner's tensor equals one branch alone.""",
     "write the second contribution with +=", "the counts, bndiff and logits branches")
_add("matmul-grad-transposed", "matmul gradient transposed",
     """For out = a @ b the gradients are dout @ b.T and a.T @ dout: each has the shape of its
     own operand. Your tensor holds the right numbers transposed.""",
     "put the transposes where the shapes say: da = dout @ b.T, db = a.T @ dout")
_add("matmul-wrong-operand", "matmul gradient built from the wrong operand",
     """The gradient of one factor of a matmul is the upstream gradient times the *other*
     factor of that same matmul. Yours used another tensor (a pre-activation instead of the
     activation, a gradient instead of a weight).""",
     "use the matmul's own other operand: for logits = h @ W2 + b2, dW2 = h.T @ dlogits")
_add("tanh-grad-one-minus-h", "tanh derivative written 1 - h",
     """d tanh(x)/dx = 1 - tanh(x)**2 = 1 - h**2. 1 - h is the derivative of nothing here.""",
     "dhpreact = (1.0 - h**2) * dh")
_add("tanh-grad-from-preactivation", "tanh derivative from the pre-activation",
     """d tanh(x)/dx = 1 - tanh(x)**2: it is computed from the output h = tanh(hpreact), not
     from hpreact itself.""", "dhpreact = (1.0 - h**2) * dh")
_add("bessel-mismatch", "Bessel's correction: 1/n where the forward used 1/(n-1), or the "
     "reverse", """The forward pass's variance divides the sum of squares by n - 1 (Bessel's
     correction, as the lecture does) or by n; the backward must use the same divisor.""",
     "dbndiff2 = (1.0/(n-1))*torch.ones_like(bndiff2) * dbnvar  (the forward's divisor)")
_add("mean-loss-missing-1/n", "the 1/n of the mean loss is missing",
     """The loss is a mean over the n examples of the batch, so every example's gradient
     carries a factor 1/n.""", "divide by n: dlogprobs[range(n), Yb] = -1.0/n")
_add("dlogprobs-sign", "the sign of dlogprobs is flipped",
     """loss = -logprobs[range(n), Yb].mean(): the minus makes the gradient at each label
     -1/n, not +1/n.""", "dlogprobs[range(n), Yb] = -1.0/n")
_add("label-index-missing", "dlogprobs set everywhere, not only at the labels",
     """Only logprobs[range(n), Yb] (one entry per row, at the label) is in the loss; every
     other entry's gradient is 0.""", "dlogprobs = torch.zeros_like(logprobs); "
     "dlogprobs[range(n), Yb] = -1.0/n")
_add("upstream-not-multiplied", "the local derivative alone, not times the upstream gradient",
     """The chain rule multiplies the local derivative by the gradient flowing in from above
     (dlogprobs, dh, ...).""", "multiply by the upstream gradient")
_add("log-derivative", "d log(x)/dx is 1/x", """The derivative of log(x) is 1/x.""",
     "dprobs = (1.0 / probs) * dlogprobs")
_add("exp-derivative", "d exp(x)/dx is exp(x)",
     """The derivative of exp(x) is exp(x) itself (here counts), not x.""",
     "dnorm_logits = counts * dcounts")
_add("power-rule-sign", "power rule: sign lost",
     """d(x**k)/dx = k * x**(k-1); for a negative k (counts_sum**-1, (bnvar + eps)**-0.5) the
     derivative is negative.""", "keep the minus: -counts_sum**-2, -0.5*(bnvar + 1e-5)**-1.5")
_add("power-rule-exponent", "power rule: exponent not lowered",
     """d(x**k)/dx = k * x**(k-1): the exponent goes down by one (-1 -> -2, -0.5 -> -1.5).""",
     "lower the exponent by one")
_add("product-operand-swapped", "product rule: the wrong factor",
     """For out = a * b, d out/d a = b and d out/d b = a: each factor's gradient uses the
     *other* factor.""", "use the other factor of the product")
_add("square-derivative", "d(x**2)/dx is 2*x", """The derivative of x**2 is 2*x.""",
     "dbndiff += (2*bndiff) * dbndiff2")
_add("subtraction-sign", "the minus of a subtraction lost",
     """For out = a - b, d out/d b = -1: the gradient of the subtracted tensor is negated.""",
     "negate: dbnmeani = (-dbndiff).sum(0, keepdim=True)")
_add("mean-grad-missing-1/n", "the 1/n of a mean is missing",
     """bnmeani = 1/n * hprebn.sum(0): each row of hprebn gets 1/n of dbnmeani.""",
     "dhprebn += 1.0/n * (torch.ones_like(hprebn) * dbnmeani)")
_add("ce-label-term-missing", "cross-entropy backward: the -1 at the label is missing",
     """d loss/d logits = (softmax(logits) - one_hot(Yb)) / n: the -1 at each row's label
     comes from the -logits[Yb] term of the loss.""",
     "dlogits = F.softmax(logits, 1); dlogits[range(n), Yb] -= 1; dlogits /= n",
     "exercise 2")
_add("ce-sign", "cross-entropy backward: the sign is flipped",
     """d loss/d logits = (softmax(logits) - one_hot(Yb)) / n, not its negative.""",
     "dlogits = F.softmax(logits, 1); dlogits[range(n), Yb] -= 1; dlogits /= n",
     "exercise 2")
_add("bn-bessel-factor", "BatchNorm backward: the n/(n-1) factor",
     """With Bessel's correction in the forward variance (divide by n - 1), the last term of
     the one-expression BatchNorm backward carries n/(n-1); without it (divide by n), 1.""",
     "dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) "
     "- n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))", "exercise 3")
_add("bn-missing-1/n", "BatchNorm backward: the /n in front is missing",
     """The mean and the variance are both averages over the batch: the whole expression is
     divided by n.""", "dhprebn = bngain*bnvar_inv/n * (...)", "exercise 3")
_add("bn-bnvar_inv-power", "BatchNorm backward: the power of bnvar_inv",
     """bnvar_inv appears once in front of the whole expression, and the last term carries
     it squared (bnraw twice, or bndiff * bnvar_inv**2).""",
     "dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) "
     "- n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))", "exercise 3")
_add("bn-mean-term-missing", "BatchNorm backward: the mean term is missing",
     """Every row of hprebn also moves the batch mean: the expression has a
     - dhpreact.sum(0) term.""", "n*dhpreact - dhpreact.sum(0) - ...", "exercise 3")
_add("embedding-scatter-overwrite", "embedding gradient assigned, not accumulated",
     """A row of C used at several positions of the batch gets the sum of their demb vectors.
     An assignment dC[ix] = demb[k, j] (or dC[Xb] += demb, which writes repeated rows once)
     keeps only one of them.""", "dC[Xb[k, j]] += demb[k, j] in a loop, or "
     "dC.index_add_(0, Xb.view(-1), demb.view(-1, n_embd))")
_add("follows-from-upstream", "wrong only because an earlier gradient is wrong",
     """This gradient is what its line gives from your own upstream gradient, which is wrong.
     Fix the first wrong gradient first; this one will follow.""", "fix the upstream gradient")
_add("no-known-mistake", "no known mistake matches",
     """None of the classic mistakes, applied to your forward tensors and to your own upstream
     gradients, gives your tensor. The report shows the largest difference and where.""",
     "work the local derivative out on paper, shape by shape")
_add("gradient-line-raised", "the line that computes this gradient raised",
     """The statement writing this gradient raised an exception (often a shape that does
     not broadcast), so the tensor holds only what was computed before it.""",
     "fix the shapes that the error message names")
_add("gradient-not-computed", "gradient never computed",
     """The file writes this gradient, but it never got a value: an earlier line raised.""",
     "fix the error shown, then run again")
_add("forward-not-found", "the forward tensors are not the lecture's",
     """The checker rebuilds every gradient from the forward pass's tensors, under the
     lecture's names (emb, embcat, hprebn, ..., logprobs) and shapes.""",
     "keep the lecture's forward pass and its variable names")
_add("no-gradients-found", "no manual gradients found",
     """No cmp(name, dX, X) call ran and no dX tensor was computed next to the forward
     pass.""", "compute dlogprobs, dprobs, ... and compare them with cmp('logprobs', "
     "dlogprobs, logprobs)")
_add("run-failed", "the file could not be run to the end",
     """The checker's child process stopped before it reported (time or memory limit, or a
     crash).""", "run the file yourself first; give more time with --timeout")
