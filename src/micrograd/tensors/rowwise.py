"""Softmax over the last axis of a big C-contiguous array, by chunks of rows on
parallel.py's threads, into preallocated arrays (each chunk's temporaries its own size).

The same numpy operations per row as ops/reduce.softmax's whole-array formulas, so the
numbers are theirs bit for bit:
    s = e / sum(e),  e = exp(x - max x);    dx = s (g - sum(g s)).
"""

from __future__ import annotations

import numpy as np

from micrograd.tensors import parallel

_FORWARD_PASSES, _BACKWARD_PASSES = 5, 4


def worth_splitting(x: np.ndarray, dim: int) -> bool:
    """Whether softmax(x, dim) should take this path: a float C-contiguous array, dim the
    last axis, and enough work for two threads."""
    return (x.ndim > 0 and dim in (-1, x.ndim - 1) and x.dtype.kind == "f"
            and x.flags.c_contiguous and x.size * _FORWARD_PASSES >= parallel.MIN_WORK)


def _rows(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1, a.shape[-1])


def softmax_last_axis(x: np.ndarray) -> np.ndarray:
    """softmax(x) along the last axis (see worth_splitting for the arrays it takes)."""
    s = np.empty_like(x)
    x2, s2 = _rows(x), _rows(s)

    def forward(rows: slice) -> None:
        out = s2[rows]
        xr = x2[rows]
        np.subtract(xr, xr.max(axis=-1, keepdims=True, initial=-np.inf), out=out)
        np.exp(out, out=out)
        out /= out.sum(axis=-1, keepdims=True)

    parallel.over_rows(forward, x2, _FORWARD_PASSES)
    return s


def softmax_last_axis_vjp(g: np.ndarray, s: np.ndarray) -> np.ndarray:
    """s (g - sum(g s)) along the last axis, for softmax_last_axis's s."""
    dx = np.empty(s.shape, np.result_type(g, s))
    g2, s2, dx2 = _rows(np.broadcast_to(g, s.shape)), _rows(s), _rows(dx)

    def backward(rows: slice) -> None:
        out, gr, sr = dx2[rows], g2[rows], s2[rows]
        np.multiply(gr, sr, out=out)
        total = out.sum(axis=-1, keepdims=True)
        np.subtract(gr, total, out=out)
        out *= sr

    parallel.over_rows(backward, s2, _BACKWARD_PASSES)
    return dx
