"""linspace, arange and logspace computed as torch 2.13's CPU kernels compute them, so the
values agree bit for bit (a script that starts from `torch.linspace` then starts from the
same numbers).

What the kernels do (ATen `native/cpu/RangeFactoriesKernel.cpp`, `native/RangeFactories.cpp`):

- linspace: in the output dtype, `step = (end - start) / (steps - 1)`; element i is
  `start + step*i` in the first half and `end - step*(steps-1-i)` in the second, and the
  compiler fuses each into one fused multiply-add (the kernel is built with FMA enabled).
- arange: in float64 (torch's accumulate type for float32 too), `start + step*i` fused.
  The vectorized loop computes one base per vector of W elements (W = 8 floats or 4
  doubles), rounds it to the output dtype, and fills the vector as `base + k*step` (fused,
  in float64); the last `n % 2W` elements take the scalar formula.
- logspace: `pow(base, start + step*i)` in float64, `step` made from the difference
  `end - start` taken in the output dtype; not fused (that file is built without FMA),
  and libm's pow (numpy's vectorized power differs from it in the last bit).

numpy has no fused multiply-add, so `fma` below emulates one exactly: an error-free product
and sum, then rounding to odd before the last rounding (Boldo and Melquiond, "Emulation of
FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008).

The fusing is the compiler's, in the builds torch dispatches to on CPUs with AVX2 (nearly
every x86-64 today). Where torch runs its plain build instead (a CPU without AVX2, or
ATEN_CPU_CAPABILITY=default) nothing is fused, and `torch_fuses()` says so here too.

Above 32,768 elements torch splits arange over its threads, each with its own vector
alignment; these values are torch's when it runs one thread (torch.set_num_threads(1)).
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np


@functools.cache
def torch_fuses() -> bool:
    """Does torch on this machine run its FMA-built kernels? (See the module docstring.)
    Asked once, at the first range made, not at import."""
    if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() == "default":
        return False
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            lines = cpuinfo.read().splitlines()
    except OSError:
        return True  # no /proc (macOS, Windows): assumed a current, fusing CPU (untested)
    x86_flags = [line for line in lines if line.startswith("flags")]
    return not x86_flags or " avx2" in x86_flags[0]  # not x86: assumed fused (untested)


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for float64
_VECTOR = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}  # ATen's Vectorized<T>::size()


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s, e with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p, e with p = fl(a * b) and a * b = p + e exactly (Dekker)."""
    p = a * b
    t = _SPLIT * a
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = _SPLIT * b
    b_hi = t - (t - b)
    b_lo = b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _round_to_odd(s: np.ndarray, error: np.ndarray) -> np.ndarray:
    """s = fl(x) with x = s + error, moved to the neighbour with an odd last bit when x was
    inexact and s's last bit is even: a second rounding is then correct."""
    inexact = (error != 0) & ((s.view(np.int64) & 1) == 0) & np.isfinite(s)
    if inexact.any():
        s = s.copy()
        s[inexact] = np.nextafter(s[inexact], np.where(error[inexact] > 0, np.inf, -np.inf))
    return s


def fma(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float,
        dtype: np.dtype) -> np.ndarray:
    """a*b + c rounded once to `dtype` (float32 or float64), as C's fma(); rounded after
    the product too where torch's kernels are not fused (see torch_fuses)."""
    if not torch_fuses():
        with np.errstate(all="ignore"):
            product = np.asarray(a, dtype) * np.asarray(b, dtype)
            return (product + np.asarray(c, dtype)).astype(dtype)
    x, y, z = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                  np.asarray(c, np.float64))
    with np.errstate(all="ignore"):
        if dtype == np.float32:  # a float32 product is exact in float64: one sum to round
            s, e = _two_sum(x * y, z)
            out = _round_to_odd(s, e).astype(np.float32)
        else:
            high, low = _two_product(x, y)
            s, e = _two_sum(z, high)
            tail = e + low
            out = s + _round_to_odd(tail, _two_sum(e, low)[1])
        plain = (x * y + z).astype(dtype)  # inf/nan operands: the error terms are nan
    return np.where(np.isfinite(out), out, plain).astype(dtype)


def linspace(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """torch.linspace's values for steps >= 2 in a floating dtype."""
    kind = dtype.type
    first, last = kind(start), kind(end)
    with np.errstate(all="ignore"):
        step = (last - first) / kind(steps - 1)
    half = steps // 2
    up = np.arange(half, dtype=dtype)
    down = np.arange(steps - 1 - half, -1, -1, dtype=dtype)
    return np.concatenate([fma(up, step, first, dtype), fma(down, -step, last, dtype)])


def arange(start: float, step: float, size: int, dtype: np.dtype) -> np.ndarray:
    """torch.arange's `size` values in a floating dtype."""
    width = _VECTOR[np.dtype(dtype)]
    vectorized = size - size % (2 * width)  # ATen's loop takes two vectors per iteration
    index = np.arange(size, dtype=np.float64)
    out = fma(index, step, start, np.dtype(np.float64))  # the scalar formula, in float64
    if vectorized:
        bases = out[:vectorized:width].astype(dtype).astype(np.float64)
        lanes = np.arange(width, dtype=np.float64)
        out[:vectorized] = fma(lanes[None, :], step, bases[:, None],
                               np.dtype(np.float64)).ravel()
    return out.astype(dtype)


def logspace(start: float, end: float, steps: int, base: float, dtype: np.dtype) -> np.ndarray:
    """torch.logspace's values for steps >= 2 in a floating dtype."""
    kind = dtype.type
    first, last = kind(start), kind(end)
    with np.errstate(all="ignore"):
        step = float(last - first) / (steps - 1)
        half = steps // 2
        i = np.arange(steps, dtype=np.float64)
        exponents = np.where(i < half, np.float64(first) + step * i,
                             np.float64(last) - step * (steps - i - 1))
    # libm's pow, as ATen's std::pow: numpy's own SIMD power differs in the last bit
    powers = np.fromiter((c_pow(base, e) for e in exponents.tolist()), np.float64, steps)
    with np.errstate(over="ignore"):  # past float32's range: inf, as torch's cast
        return powers.astype(dtype)


def c_pow(base: float, exponent: float) -> float:
    """C's pow(): inf on overflow and nan outside the domain, where math.pow raises."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf if base > 0 or exponent % 2 != 1 else -math.inf
    except ValueError:
        return math.nan
