"""`torch.autograd.grad`: the gradients of outputs with respect to chosen inputs, returned
instead of accumulated into `.grad`.

It runs the ordinary backward pass (the shared walker) and then puts every `.grad` it
touched back as it was, so the caller's accumulated gradients are left alone, as torch's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from micrograd import autograd
from micrograd.tensors import saved
from micrograd.tensors.tensor import Tensor, kept_gradients, leaf
from micrograd.tensors.unsupported import unsupported_argument

__all__ = ["grad"]


def _tensors(value: Tensor | Sequence[Tensor], name: str) -> list[Tensor]:
    listed = [value] if isinstance(value, Tensor) else list(value)
    for t in listed:
        if not isinstance(t, Tensor):
            raise TypeError(f"autograd.grad: {name} must be tensors, got {type(t).__name__}")
    return listed


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor | None, ...]:
    """(d sum(outputs * grad_outputs) / d input for each input); `.grad` fields unchanged."""
    if create_graph:
        raise unsupported_argument("torch.autograd.grad", "create_graph=True")
    if is_grads_batched:
        raise unsupported_argument("torch.autograd.grad", "is_grads_batched=True")
    outs, ins = _tensors(outputs, "outputs"), _tensors(inputs, "inputs")
    seeds = [None] * len(outs) if grad_outputs is None else (
        [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs))
    if len(seeds) != len(outs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(seeds)} "
                           f"grad_outputs and {len(outs)} outputs")
    for i, out in enumerate(outs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    graph: dict[int, Tensor] = {}
    for out in outs:
        graph.update((id(n), n) for n in autograd.topological_order(out))
    used = [id(x) in graph for x in ins]
    for i, is_used in enumerate(used):
        if not is_used and not (allow_unused or materialize_grads):
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                               "been used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
    kept = {key: node._grad_array for key, node in graph.items()}
    totals: list[np.ndarray | None] = [None] * len(ins)
    try:
        for out, seed in zip(outs, seeds, strict=True):
            for node in graph.values():
                node._grad_array = None
            with kept_gradients([x for x, is_used in zip(ins, used, strict=True)
                                 if is_used]) as gradient:
                out.backward(seed, retain_graph=True)
                for i, x in enumerate(ins):
                    g = gradient(x) if used[i] else None
                    if g is not None:
                        totals[i] = g.copy() if totals[i] is None else totals[i] + g
    finally:
        for key, node in graph.items():
            node._grad_array = kept[key]
    if not retain_graph:
        saved.release(graph.values())
    results: list[Tensor | None] = []
    for x, total, is_used in zip(ins, totals, used, strict=True):
        if total is None and (materialize_grads or is_used):
            total = np.zeros_like(x._array)
        results.append(None if total is None else leaf(total))
    return tuple(results)
