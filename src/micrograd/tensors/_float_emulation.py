"""Float arithmetic as torch's compiled CPU kernels do it, reproduced with numpy.

Bit-for-bit copies of torch's random streams (`micrograd.tensors.random`) need three things
numpy does not give directly: a multiply-add rounded once (`fma`, built from error-free
sums and products, with exact rationals for the rare values near a rounding boundary),
the C library's own float64 and float32 `log`/`sin`/`cos` results, and the vectorised
float32 log/sincos polynomials torch's AVX2 build uses for normals. Needs numpy only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["c_float_function", "fma", "libm", "log_f32", "sincos_f32"]

_F32 = np.float32


def _round_fraction(value: Fraction, mantissa_bits: int) -> float:
    """Round a rational to the nearest float with `mantissa_bits` bits (ties to even)."""
    if value == 0:
        return 0.0
    sign = -1.0 if value < 0 else 1.0
    value = abs(value)
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exponent > value:
        exponent -= 1
    shift = mantissa_bits - 1 - exponent  # scale so the integer part has mantissa_bits
    scaled = value * Fraction(2) ** shift
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and whole % 2 == 1):
        whole += 1
    return sign * math.ldexp(float(whole), -shift)


def _two_sum(x: Any, y: Any) -> tuple[Any, Any]:
    """Knuth's error-free sum: x + y == total + error exactly."""
    total = x + y
    virtual = total - x
    return total, (x - (total - virtual)) + (y - virtual)


def _two_product(x: Any, y: Any) -> tuple[Any, Any]:
    """Dekker's error-free float64 product: x * y == product + error exactly."""
    splitter = 134217729.0  # 2**27 + 1 cuts a double into two 26-bit halves
    x_scaled, y_scaled = splitter * x, splitter * y
    x_high = x_scaled - (x_scaled - x)
    y_high = y_scaled - (y_scaled - y)
    x_low, y_low = x - x_high, y - y_high
    product = x * y
    error = x_low * y_low - (((product - x_high * y_high) - x_low * y_high) - x_high * y_low)
    return product, error


def _near_a_rounding_boundary(result: Any, below: Any, slack: Any) -> Any:
    """Where `result + below` might round differently from `result` once `slack` is added:
    |below| within `slack` of half an ulp, or result a power of two (uneven ulps)."""
    half_ulp = np.spacing(np.abs(result)).astype(np.float64) / 2  # in result's own type
    power_of_two = np.abs(np.frexp(result)[0]) == 0.5
    return (np.abs(np.abs(below) - half_ulp) <= np.abs(slack)) | power_of_two


def fma(a: npt.ArrayLike, b: npt.ArrayLike, c: npt.ArrayLike, dtype: np.dtype) -> np.ndarray:
    """a*b + c rounded once to `dtype`, as the FMA instructions in torch's kernels do.

    float32: the product is exact in float64 and the sum rounds once there. float64:
    error-free product and sums give a*b + c as result + small parts. Either way, the rare
    values that may sit on a rounding boundary are redone with exact rationals.
    """
    a_d, b_d, c_d = (np.asarray(v, dtype=dtype) for v in (a, b, c))
    if np.all(c_d == 0):
        return np.asarray(a_d * b_d, dtype=dtype)
    if np.all(b_d == 1):
        return np.asarray(a_d + c_d, dtype=dtype)
    if dtype == np.float32:
        product: Any = a_d.astype(np.float64) * b_d.astype(np.float64)
        wide, sum_error = _two_sum(product, c_d.astype(np.float64))
        result: Any = wide.astype(np.float32)
        # the float64 sum is exact unless sum_error != 0; only then can rounding it to
        # float32 (a second rounding) differ from rounding the exact value once
        below = wide - result.astype(np.float64)
        suspicious = (sum_error != 0) & _near_a_rounding_boundary(result, below, sum_error)
    else:
        product, product_error = _two_product(a_d, b_d)
        head, tail = _two_sum(product, c_d)
        small, smallest = _two_sum(tail, product_error)
        result, below = _two_sum(head, small)  # exact value: result + below + smallest
        suspicious = (smallest != 0) & _near_a_rounding_boundary(result, below, smallest)
        # Dekker's split needs headroom: huge or tiny operands go the exact way
        with np.errstate(over="ignore", invalid="ignore"):
            unsafe = ~np.isfinite(product) | (np.abs(a_d) > 1e300) | (np.abs(b_d) > 1e300)
            unsafe |= (product != 0) & (np.abs(product) < 1e-290)
        suspicious = suspicious | unsafe
    suspicious = np.broadcast_to(suspicious, np.shape(result)) & np.isfinite(result)
    if np.any(suspicious):
        bits = np.finfo(dtype).nmant + 1
        a_b, b_b, c_b = np.broadcast_arrays(a_d, b_d, c_d)
        result = np.array(result, copy=True)
        for index in zip(*np.nonzero(suspicious), strict=True):
            exact = (Fraction(float(a_b[index])) * Fraction(float(b_b[index]))
                     + Fraction(float(c_b[index])))
            result[index] = _round_fraction(exact, bits)
    return np.asarray(result, dtype=dtype)

def libm(function: Callable[[float], float], values: np.ndarray) -> np.ndarray:
    """A float64 libm function element by element: the C library's exact results, which
    numpy's own vectorised log/log1p do not always reproduce."""
    flat = values.ravel().tolist()
    return np.array([function(v) for v in flat], dtype=np.float64).reshape(values.shape)


_C_MATH: ctypes.CDLL | None = None


def c_float_function(name: str, values: np.ndarray) -> np.ndarray:
    """The C library's float `logf`/`sinf`/`cosf` element by element, as torch's portable
    kernel calls them (their last bits differ from a rounded double result)."""
    global _C_MATH
    if _C_MATH is None:
        _C_MATH = ctypes.CDLL(ctypes.util.find_library("m") or ctypes.util.find_library("c"))
    function = getattr(_C_MATH, name)
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    results = [function(v) for v in values.ravel().tolist()]
    return np.array(results, dtype=np.float32).reshape(values.shape)

# Constants of the vectorised single-precision log/sincos torch uses (Cephes polynomials,
# as in Pommier's sse_mathfun), rounded to float32 exactly as their C initialisers are.
_LOG_POLY = [_F32(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                               -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                               2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]
_LOG_Q1, _LOG_Q2 = _F32(-2.12194440e-4), _F32(0.693359375)
_SQRT_HALF = _F32(0.707106781186547524)
_REDUCE = [_F32(v) for v in (-0.78515625, -2.4187564849853515625e-4,
                             -3.77489497744594108e-8)]
_SIN_POLY = [_F32(v) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS_POLY = [_F32(v) for v in (2.443315711809948e-5, -1.388731625493765e-3,
                               4.166664568298827e-2)]
_FOUR_OVER_PI = _F32(1.27323954473516)
_F32_MIN_NORMAL = _F32(np.finfo(np.float32).tiny)


def log_f32(x: np.ndarray) -> np.ndarray:
    """Single-precision log by frexp and a degree-9 polynomial, with the multiply-adds
    the compiler fuses in torch's AVX2 build."""
    x = np.maximum(x, _F32_MIN_NORMAL)
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 0x7F).astype(np.float32) + _F32(1)
    mantissa = ((bits & ~0x7F800000) | _F32(0.5).view(np.int32)).view(np.float32)
    small = mantissa < _SQRT_HALF
    exponent = exponent - small.astype(np.float32)
    x = (mantissa - _F32(1)) + np.where(small, mantissa, _F32(0))
    z = x * x
    poly = np.full_like(x, _LOG_POLY[0])
    for coefficient in _LOG_POLY[1:]:
        poly = fma(poly, x, coefficient, np.dtype(np.float32))
    poly = poly * x
    poly = fma(poly, z, exponent * _LOG_Q1, np.dtype(np.float32))
    poly = fma(-z, _F32(0.5), poly, np.dtype(np.float32))
    return fma(exponent, _LOG_Q2, x + poly, np.dtype(np.float32))


def sincos_f32(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Single-precision sine and cosine for x >= 0: reduce by multiples of pi/4 in three
    parts, then the Cephes polynomials, with torch's fused multiply-adds."""
    f32 = np.dtype(np.float32)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(np.float32)
    sin_negative = (octant & 4) != 0
    cos_negative = (~(octant - 2) & 4) != 0
    use_sine_poly = (octant & 2) == 0
    for part in _REDUCE:
        x = fma(y, part, x, f32)
    z = x * x
    cos_poly = np.full_like(x, _COS_POLY[0])
    sin_poly = np.full_like(x, _SIN_POLY[0])
    for k in (1, 2):
        cos_poly = fma(cos_poly, z, _COS_POLY[k], f32)
        sin_poly = fma(sin_poly, z, _SIN_POLY[k], f32)
    cos_poly = fma(cos_poly * z, z, -(z * _F32(0.5)), f32) + _F32(1)
    sin_poly = fma(sin_poly * z, x, x, f32)
    sine = np.where(use_sine_poly, sin_poly, cos_poly)
    cosine = np.where(use_sine_poly, cos_poly, sin_poly)
    return np.where(sin_negative, -sine, sine), np.where(cos_negative, -cosine, cosine)
