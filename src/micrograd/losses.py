"""Loss functions over Values: each one is a small expression, so backward() just works.

    mse(preds, targets)                 mean (p - t)^2         (reduction="sum": the lecture's loss)
    hinge_loss(scores, labels)          mean relu(1 - y s)     (the moons demo's max-margin loss)
    logistic_loss(scores, labels)       mean log(1 + e^(-y s)) (binary; stable at any |s|)
    cross_entropy(logits, target)       logsumexp(z) - z_target (softmax + log-likelihood, stable)
    l2_penalty(params, alpha)           alpha * sum p^2

Labels for the binary losses are +1 / -1 (0 is read as -1, so 0/1 labels work too).
"mean" is computed as sum * (1.0 / n), the moons notebook's order of operations, so the demo
reproduces the notebook's numbers to the last bit. The element-wise losses also accept one
array-valued node (a Tensor) in place of a list, using its .relu()/.sum()/.mean() methods.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

from micrograd.engine import Value

Number = int | float
Scalar = Value | Number

__all__ = [
    "cross_entropy",
    "hinge_loss",
    "l2_penalty",
    "logistic_loss",
    "logsumexp",
    "mse",
    "softplus",
]

REDUCTIONS = ("mean", "sum", "none")


# --- two stable building blocks ---------------------------------------------------------


def softplus(z: Scalar) -> Value:
    """softplus(z) = log(1 + e^z), stable for any z; d/dz = sigmoid(z). The op registry's
    softplus, without torch's threshold (past it torch returns z itself)."""
    return _as_value(z, "softplus").softplus(1.0, math.inf)


def logsumexp(values: Sequence[Scalar]) -> Value:
    """log(sum_i e^(z_i)) = m + log(sum_i e^(z_i - m)) with m = max z: no overflow.

    m is a plain number, not a node: the gradient is softmax(z) either way.
    """
    zs = [_as_value(z, "logsumexp") for z in values]
    if not zs:
        raise ValueError("logsumexp needs at least one value, got an empty list")
    m = max(z.data for z in zs)
    shift = m if math.isfinite(m) else 0.0  # all -inf, or an inf: nothing to shift
    return _sum((z - shift).exp() for z in zs).log() + shift


# --- regression and binary classification ------------------------------------------------


def mse(predictions: Any, targets: Any, reduction: str = "mean") -> Any:
    """Mean squared error: (1/n) sum (p_i - t_i)^2. reduction="sum" is the lecture's loss."""
    _check_reduction(reduction)
    if _is_array_node(predictions):
        _check_same_shape(predictions, targets, "mse", "predictions", "targets")
        diff = predictions - targets
        return _reduce_node(diff * diff, reduction)
    preds, ts = _pair(predictions, targets, "mse", "predictions", "targets")
    return _reduce([(p - t) ** 2 for p, t in zip(preds, ts, strict=True)], reduction)


def hinge_loss(scores: Any, labels: Any, reduction: str = "mean") -> Any:
    """Max-margin (SVM) loss: (1/n) sum relu(1 - y_i s_i), labels y = +1/-1."""
    _check_reduction(reduction)
    if _is_array_node(scores):
        labels = _sign_labels_for(scores, labels, "hinge_loss")
        return _reduce_node((1 - labels * scores).relu(), reduction)
    ss, ys = _pair(scores, labels, "hinge_loss", "scores", "labels")
    ys = [_sign_label(y, "hinge_loss") for y in ys]
    # Written as the moons notebook writes it, (1 + -y*s).relu(), for bit-identical numbers.
    return _reduce([(1 + -y * s).relu() for s, y in zip(ss, ys, strict=True)], reduction)


def logistic_loss(scores: Any, labels: Any, reduction: str = "mean") -> Any:
    """Binary logistic loss: (1/n) sum log(1 + e^(-y_i s_i)) = softplus(-y s), labels +1/-1 or 0/1.

    Equals binary cross-entropy of sigmoid(s), but is finite for any score (s = +-1000 too).
    """
    _check_reduction(reduction)
    if _is_array_node(scores):
        labels = _sign_labels_for(scores, labels, "logistic_loss")
        # labels may be a list
        return _reduce_node(_softplus_composed(-(labels * scores)), reduction)
    ss, ys = _pair(scores, labels, "logistic_loss", "scores", "labels")
    ys = [_sign_label(y, "logistic_loss") for y in ys]
    return _reduce([softplus(-y * s) for s, y in zip(ss, ys, strict=True)], reduction)


def _softplus_composed(z: Any) -> Any:
    """softplus from abs/exp/log, for any array-valued node (ours or a torch tensor).

    0.5 z + 0.5 |z| is max(z, 0) exactly, and unlike relu its gradient at 0 is 1/2 -- the
    true softplus'(0); log(1 + e^-|z|) cannot overflow.
    """
    return 0.5 * z + 0.5 * abs(z) + (1 + (-abs(z)).exp()).log()


# --- multi-class -------------------------------------------------------------------------


def cross_entropy(logits: Sequence[Any], target: Any, reduction: str = "mean") -> Any:
    """Softmax cross-entropy: -log softmax(z)[target] = logsumexp(z) - z[target].

    One sample: `logits` is a list of Values (one per class), `target` an int class index.
    A batch: a list of such lists and a list of ints; `reduction` says how to combine them.
    """
    _check_reduction(reduction)
    if not isinstance(target, (numbers.Number, str)) and hasattr(target, "__len__"):
        rows, targets = _pair(logits, list(target), "cross_entropy", "logits", "targets")
        losses = [_cross_entropy_one(z, t) for z, t in zip(rows, targets, strict=True)]
        return _reduce(losses, reduction)
    return _cross_entropy_one(logits, target)


def _cross_entropy_one(logits: Sequence[Scalar], target: Any) -> Value:
    if isinstance(logits, (str, bytes)) or not isinstance(logits, Sequence):
        raise TypeError(
            f"cross_entropy: logits must be a list of Values, got {type(logits).__name__}"
        )
    if not isinstance(target, numbers.Integral) or isinstance(target, bool):
        raise TypeError(
            f"cross_entropy: target must be an int class index, "
            f"got {type(target).__name__}: {target!r}"
        )
    index = int(target)  # numpy integers too
    if not 0 <= index < len(logits):
        raise ValueError(
            f"cross_entropy: target {index} is out of range for {len(logits)} classes "
            f"(expected 0..{len(logits) - 1})"
        )
    zs = [_as_value(z, "cross_entropy") for z in logits]
    return logsumexp(zs) - zs[index]


# --- regularization ------------------------------------------------------------------------


def l2_penalty(params: Iterable[Any], alpha: float = 1e-4) -> Any:
    """alpha * sum p^2 over the parameters (the moons demo uses alpha = 1e-4)."""
    return alpha * sum(p * p for p in params)


# --- helpers --------------------------------------------------------------------------------


def _is_array_node(x: Any) -> bool:
    """One node holding many numbers (a Tensor), as opposed to a list of Values."""
    return not isinstance(x, (list, tuple, Value)) and hasattr(x, "sum") and hasattr(x, "shape")


def _as_value(x: Any, where: str) -> Value:
    if isinstance(x, Value):
        return x
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return Value(x)
    raise TypeError(f"{where}: expected Values or numbers, got {type(x).__name__}: {x!r:.60}")


def _pair(
    a: Any, b: Any, where: str, a_name: str, b_name: str
) -> tuple[list[Any], list[Any]]:
    """Two equally long, non-empty lists; a clear error otherwise (zip would truncate)."""
    if isinstance(a, Value):
        a = [a]
    if isinstance(b, (Value, int, float)):
        b = [b]
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"{where}: got {len(a)} {a_name} but {len(b)} {b_name}; they must match")
    if not a:
        raise ValueError(f"{where}: got no {a_name}; expected at least one")
    return a, b


def _sign_label(y: Any, where: str) -> float:
    """+1 for the positive class, -1 for the negative one (written -1 or 0)."""
    value = y.data if isinstance(y, Value) else y
    if value == 1:
        return 1.0
    if value == -1 or value == 0:
        return -1.0
    raise ValueError(f"{where}: labels must be +1 or -1 (or 1 / 0), got {value!r}")


def _nested_shape(x: Any) -> tuple[int, ...]:
    """The shape of a number (()) or of nested lists of numbers."""
    if isinstance(x, (list, tuple)):
        return (len(x),) + (_nested_shape(x[0]) if x else ())
    return ()


def _check_same_shape(node: Any, other: Any, where: str, node_name: str, other_name: str) -> None:
    """Refuse what broadcasting would silently accept: (N, 1) scores against (N,) labels
    compare every score with every label, an (N, N) loss that trains the wrong thing."""
    shape = tuple(other.shape) if hasattr(other, "shape") else _nested_shape(other)
    expected = tuple(node.shape)
    if shape and shape != expected:
        raise ValueError(
            f"{where}: {node_name} of shape {expected} but {other_name} of shape {shape}; "
            f"they must have the same shape (reshape, e.g. {node_name}.reshape(-1))"
        )


def _sign_labels_for(scores: Any, labels: Any, where: str) -> Any:
    """Labels for an array node of scores: the same shape, each +1/-1 or 0 (read as -1)."""
    _check_same_shape(scores, labels, where, "scores", "labels")
    is_array = hasattr(labels, "tolist")
    values = labels.tolist() if is_array else labels
    signs = _map_nested(lambda y: _sign_label(y, where), values)
    if signs == values:
        return labels  # already +1/-1: used as given, so the numbers stay bit-identical
    # y^2 + y - 1 maps 1 -> 1, 0 -> -1 and -1 -> -1 exactly, with array arithmetic only
    return labels * labels + labels - 1 if is_array else signs


def _map_nested(f: Any, x: Any) -> Any:
    """f applied to every number in x (a number or nested lists of numbers)."""
    if isinstance(x, (list, tuple)):
        return [_map_nested(f, item) for item in x]
    return f(x)


def _check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")


def _reduce(losses: list[Value], reduction: str) -> Value | list[Value]:
    if reduction == "none":
        return losses
    total = _sum(losses)
    return total if reduction == "sum" else total * (1.0 / len(losses))


def _sum(values: Iterable[Value]) -> Value:
    """sum(values) as Python builds it, 0 + v0 + v1 + ... (the lecture's graph), for the
    non-empty lists the callers have checked: always a Value, never sum's int 0."""
    total = sum(values)
    if not isinstance(total, Value):
        raise ValueError("expected at least one Value to add up, got none")
    return total


def _reduce_node(losses: Any, reduction: str) -> Any:
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()
