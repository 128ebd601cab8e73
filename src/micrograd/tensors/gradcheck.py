"""gradcheck for tensors: backward() against central differences, element by element.

The same test PyTorch's torch.autograd.gradcheck runs: for every input element x_k and
every output element y_j, the analytic d y_j / d x_k from backward() must match
(f(x_k + eps) - f(x_k - eps)) / (2 eps) within atol + rtol * |numerical|.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from micrograd.autograd import no_grad
from micrograd.gradcheck import GradcheckError
from micrograd.tensors.tensor import Tensor, kept_gradients

__all__ = ["gradcheck", "GradcheckError"]  # one GradcheckError, for Values and Tensors


def gradcheck(fn: Callable[..., Tensor], inputs: Sequence[Tensor], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3) -> bool:
    """True if fn's analytic gradients match central differences (raise GradcheckError if not).

    Inputs that require grad must be float64: in float32, differences of size eps vanish.
    The backward pass is run twice per output element to check it gives the same result.
    """
    inputs = list(inputs)
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError("gradcheck needs at least one input with requires_grad=True")
    for i in checked:
        if inputs[i].dtype != np.float64:
            raise TypeError(f"gradcheck needs float64 inputs; input {i} is {inputs[i].dtype}")
    out = fn(*inputs)
    n_out = out._array.size
    analytic = {i: np.zeros((n_out, inputs[i]._array.size)) for i in checked}
    for j in range(n_out):
        seed = np.zeros(out.shape)
        seed.flat[j] = 1.0
        first = _gradients(out, seed, inputs, checked)
        second = _gradients(out, seed, inputs, checked)
        for i in checked:
            if not np.array_equal(first[i], second[i], equal_nan=True):
                raise GradcheckError(
                    f"backward is not reentrant: two backward passes gave different "
                    f"gradients for input {i}"
                )
            analytic[i][j] = first[i].ravel()
    for i in checked:
        x = inputs[i]._array
        for k in range(x.size):
            original = x.flat[k]
            with no_grad():
                x.flat[k] = original + eps
                plus = np.array(fn(*inputs)._array, dtype=np.float64).ravel()
                x.flat[k] = original - eps
                minus = np.array(fn(*inputs)._array, dtype=np.float64).ravel()
                x.flat[k] = original
            numerical = (plus - minus) / (2 * eps)
            for j in range(n_out):
                a, n = analytic[i][j, k], numerical[j]
                if not abs(a - n) <= atol + rtol * abs(n):
                    element = np.unravel_index(k, x.shape) if x.ndim else ()
                    raise GradcheckError(
                        f"gradient of output element {j} with respect to input {i} element "
                        f"{tuple(int(e) for e in element)}: backward gives {float(a)!r}, "
                        f"central difference gives {float(n)!r} (atol={atol}, rtol={rtol})"
                    )
    return True


def _gradients(out: Tensor, seed: np.ndarray, inputs: list, checked: list) -> dict:
    for i in checked:
        inputs[i]._grad_array = None
    with kept_gradients([inputs[i] for i in checked]) as gradient:
        out.backward(seed, retain_graph=True)  # the same graph, once per output element
        grads = {i: gradient(inputs[i]) for i in checked}
    return {i: np.zeros_like(inputs[i]._array) if g is None else np.array(g)
            for i, g in grads.items()}

