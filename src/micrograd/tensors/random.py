"""PyTorch's CPU random streams, bit for bit, as numpy arrays.

torch's CPU generator is a 32-bit Mersenne Twister (MT19937) seeded with the reference
`init_genrand` recurrence from the low 32 bits of the seed. Every distribution draws 32-bit
words from it (or 64-bit words made of two of them, first word high) and transforms them
with a fixed formula. This module keeps the same state, draws the words in bulk from
numpy's `MT19937` bit generator (whose state we set to torch's), and applies the same
transformations with numpy, operation for operation -- including the fused multiply-adds
that torch's compiled kernels use, and the vectorised polynomial log/sin/cos with which
torch fills float32 normals of 16 or more elements on x86-64 CPUs with AVX2.

Everything here returns or fills numpy arrays; the Tensor classes wrap them.
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from micrograd.tensors._float_emulation import c_float_function, fma, libm, log_f32, sincos_f32

__all__ = [
    "DEFAULT_SEED", "Generator", "bernoulli", "bernoulli_", "default_generator",
    "dropout_keep", "dropout_mask", "exponential_", "get_rng_state", "initial_seed",
    "manual_seed",
    "multinomial", "normal_", "rand", "randint", "randn", "randperm", "seed",
    "set_rng_state", "uniform_",
]

Shape = int | Sequence[int]
DTypeLike = npt.DTypeLike

DEFAULT_SEED = 67280421310721
"""The seed of a fresh `torch.Generator()` (c10's `default_rng_seed_val`)."""

_STATE_WORDS = 624  # MT19937's state: 624 words of 32 bits


def _detect_cpu_kernels() -> str:
    """Which of torch's CPU kernels to follow: "avx2" (x86-64 with AVX2, also chosen on
    AVX-512 machines) or "default" (the portable build, as on ARM or with
    ATEN_CPU_CAPABILITY=default)."""
    if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() == "default" or \
            platform.machine().lower() not in ("x86_64", "amd64"):
        return "default"
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    features = getattr(getattr(core, "_multiarray_umath", None), "__cpu_features__", None)
    if isinstance(features, dict) and "AVX2" in features:
        return "avx2" if features["AVX2"] and features.get("FMA3", True) else "default"
    return "avx2"


cpu_kernels = _detect_cpu_kernels()
"""torch compiles its CPU kernels per instruction set and the float32 normal fill (16+
elements) and the scalar normal's `x*std + mean` differ between them in the last bit.
"avx2" follows x86-64 CPUs with AVX2/AVX-512 (verified), "default" the portable kernels
(verified with ATEN_CPU_CAPABILITY=default; a best guess for ARM). Assign to override."""
_UINT64_MASK = (1 << 64) - 1
_U64 = np.uint64
_F32 = np.float32

# torch.get_rng_state()'s byte layout: the legacy THGenerator struct (seed, left, seeded,
# next, the 624 state words widened to 64 bits, three doubles and a flag for the cached
# double normal) followed by the cached float normal and its flag; C padding is zero.
_STATE_LAYOUT = np.dtype({
    "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y",
              "normal_rho", "normal_is_valid", "next_float_normal", "float_normal_is_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _STATE_WORDS), "<f8", "<f8", "<f8",
                "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": 5056,
})
STATE_SIZE = _STATE_LAYOUT.itemsize
"""Bytes in `get_rng_state()`, the same as `torch.get_rng_state().numel()`."""


def _seed_to_uint64(seed: int) -> int:
    """torch accepts seeds in [-2**63, 2**64) and keeps them modulo 2**64."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a seed must be an integer, got {type(seed).__name__}")
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError(f"a seed must lie in [-2**63, 2**64), got {seed}")
    return seed & _UINT64_MASK


def _mersenne_key(seed: int) -> np.ndarray:
    """MT19937's reference initialisation (init_genrand) from the seed's low 32 bits."""
    word = seed & 0xFFFFFFFF
    key = [word]
    for index in range(1, _STATE_WORDS):
        word = (1812433253 * (word ^ (word >> 30)) + index) & 0xFFFFFFFF
        key.append(word)
    return np.array(key, dtype=np.uint32)


def _nondeterministic_seed() -> int:
    return int.from_bytes(os.urandom(8), "little")


class Generator:
    """A CPU random generator with torch's state and streams (`torch.Generator()`).

    `Generator()` starts from torch's default seed 67280421310721, so it draws what a
    fresh `torch.Generator()` draws; `Generator().manual_seed(s)` what torch's does.
    """

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self._bits = np.random.MT19937()
        self._seed = 0
        # torch keeps `next` = 0 until the first draw after seeding; we only need it to
        # write the same state bytes, the stream itself follows numpy's position.
        self._fresh = True
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None
        self.manual_seed(seed)

    # -- seeding and state ------------------------------------------------------------
    def manual_seed(self, seed: int) -> Generator:
        """Seed as `torch.Generator.manual_seed(seed)`; returns the generator."""
        self._seed = _seed_to_uint64(seed)
        self._set_mt(_mersenne_key(self._seed), position=_STATE_WORDS, fresh=True)
        self._next_double_normal = None
        self._next_float_normal = None
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the new seed."""
        new_seed = _nondeterministic_seed()
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        """The seed last given (as an unsigned 64-bit integer, as torch reports it)."""
        return self._seed

    def get_state(self) -> np.ndarray:
        """The state as `torch.Generator.get_state()`: 5056 bytes (uint8), torch's layout."""
        mt = self._bits.state["state"]
        position = int(mt["pos"])
        record = np.zeros((), dtype=_STATE_LAYOUT)
        record["seed"] = self._seed
        record["left"] = _STATE_WORDS + 1 - position
        record["seeded"] = 1
        record["next"] = 0 if self._fresh else position
        record["state"] = np.asarray(mt["key"], dtype=np.uint64)
        if self._next_double_normal is not None:
            record["normal_is_valid"] = 1
            record["normal_y"] = self._next_double_normal
        if self._next_float_normal is not None:
            record["float_normal_is_valid"] = 1
            record["next_float_normal"] = self._next_float_normal
        return np.frombuffer(record.tobytes(), dtype=np.uint8).copy()

    def set_state(self, state: object) -> Generator:
        """Restore a state from `get_state()` -- ours or torch's bytes (uint8, 5056)."""
        raw = np.asarray(state)
        if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size != STATE_SIZE:
            raise ValueError(
                f"a generator state must be a 1-d uint8 array of {STATE_SIZE} bytes "
                f"(from get_state() or torch.get_rng_state()), got dtype {raw.dtype} "
                f"and shape {raw.shape}")
        record = np.frombuffer(raw.tobytes(), dtype=_STATE_LAYOUT)[0]
        left, next_index = int(record["left"]), int(record["next"])
        if not record["seeded"] or not 0 < left <= _STATE_WORDS or next_index > _STATE_WORDS:
            raise ValueError("invalid Mersenne Twister state: it must be seeded, with "
                             f"0 < left <= 624 and next <= 624 (got left={left}, "
                             f"next={next_index})")
        position = _STATE_WORDS + 1 - left
        fresh = left == 1 and next_index == 0
        if not fresh and next_index != position:
            raise ValueError("unsupported Mersenne Twister state: torch's left and next "
                             f"counters disagree (left={left}, next={next_index}); "
                             "states written by torch or by get_state() always agree")
        words = np.asarray(record["state"], dtype=np.uint64)
        if np.any(words > 0xFFFFFFFF):
            raise ValueError("invalid Mersenne Twister state: words exceed 32 bits")
        self._seed = int(record["seed"])
        self._set_mt(words.astype(np.uint32), position=position, fresh=fresh)
        self._next_double_normal = (float(record["normal_y"])
                                    if record["normal_is_valid"] else None)
        self._next_float_normal = (float(record["next_float_normal"])
                                   if record["float_normal_is_valid"] else None)
        return self

    def clone(self) -> Generator:
        """An independent generator in the same state."""
        return Generator().set_state(self.get_state())

    def __repr__(self) -> str:
        return f"Generator(initial_seed={self._seed})"

    # -- raw words --------------------------------------------------------------------
    def _set_mt(self, key: np.ndarray, position: int, fresh: bool) -> None:
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": key, "pos": position}}
        self._fresh = fresh

    def random32(self, count: int) -> np.ndarray:
        """`count` raw 32-bit outputs (torch's `random()`), as uint64."""
        if count <= 0:
            return np.zeros(0, dtype=np.uint64)
        self._fresh = False
        return self._bits.random_raw(count)

    def random64(self, count: int) -> np.ndarray:
        """`count` 64-bit words (torch's `random64()`): two draws, the first the high half."""
        pairs = self.random32(2 * count).reshape(count, 2)
        return (pairs[:, 0] << _U64(32)) | pairs[:, 1]


default_generator = Generator(_nondeterministic_seed())
"""The global generator, as `torch.default_generator` (seeded from the OS at import)."""


def manual_seed(seed: int) -> Generator:
    """Seed the global generator (`torch.manual_seed`); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the global generator from the OS (`torch.seed`); returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The global generator's seed (`torch.initial_seed`)."""
    return default_generator.initial_seed()


def get_rng_state() -> np.ndarray:
    """The global generator's state in torch's byte layout (`torch.get_rng_state`)."""
    return default_generator.get_state()


def set_rng_state(state: object) -> None:
    """Restore the global generator's state (`torch.set_rng_state`)."""
    default_generator.set_state(state)


# -- helpers --------------------------------------------------------------------------
def resolve_stream(generator: object) -> Generator:
    """The one answer to `generator=`, for every random function: None -> the global torch
    stream (seeded by manual_seed); a torch.Generator -> itself; anything else: a TypeError
    saying what is expected. (nn.init and DataLoader also take a numpy Generator, an older
    option: they check for it before asking here.)"""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError("generator must be None or a torch.Generator (micrograd.torch."
                        f"Generator), got {type(generator).__name__}")
    return generator


def _shape(shape: Shape) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 0:
            raise ValueError(f"a shape must be non-negative integers, got {shape!r}")
    return tuple(int(dim) for dim in dims)


def _float_dtype(dtype: DTypeLike) -> np.dtype:
    resolved = np.dtype(dtype)
    if resolved not in (np.float32, np.float64):
        raise TypeError(f"expected dtype float32 or float64, got {resolved}")
    return resolved


def _float_probabilities(probs: object, name: str) -> np.ndarray:
    probs = np.asarray(probs)
    if probs.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name} expects float32 or float64 probabilities, got {probs.dtype}")
    return probs


def _check_array(array: object, name: str) -> np.ndarray:
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{name} fills a numpy array in place, got {type(array).__name__}")
    if not array.flags.writeable:
        raise ValueError(f"{name} needs a writeable array")
    return array


def _memory_order_view(array: np.ndarray) -> np.ndarray:
    """The array with its axes in memory order, as torch's TensorIterator visits them."""
    if array.flags.c_contiguous:
        return array
    order = sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis]))
    return array.transpose(order)


def _store(array: np.ndarray, values: np.ndarray) -> np.ndarray:
    view = _memory_order_view(array)
    view[...] = values.reshape(view.shape).astype(array.dtype, copy=False)
    return array



def _unit_uniform(gen: Generator, count: int, dtype: np.dtype) -> np.ndarray:
    """torch's uniform_real_distribution(0, 1): 24 (float32) or 53 (float64) random bits."""
    if dtype == np.float32:
        words = gen.random32(count) & _U64(0xFFFFFF)
        return words.astype(np.float32) * _F32(2.0 ** -24)
    words = gen.random64(count) & _U64((1 << 53) - 1)
    return words.astype(np.float64) * 2.0 ** -53



# -- uniform ------------------------------------------------------------------------
def uniform_(array: np.ndarray, low: float = 0.0, high: float = 1.0,
             generator: Generator | None = None) -> np.ndarray:
    """Fill `array` (float32/float64) in place as `Tensor.uniform_(low, high)`."""
    array = _check_array(array, "uniform_")
    dtype = _float_dtype(array.dtype)
    gen = resolve_stream(generator)
    unit = _unit_uniform(gen, array.size, dtype)
    low_d, high_d = dtype.type(low), dtype.type(high)
    if low_d == 0 and high_d == 1:
        return _store(array, unit)
    if cpu_kernels != "avx2":  # the portable kernel multiplies and adds separately
        return _store(array, unit * dtype.type(high_d - low_d) + low_d)
    return _store(array, fma(unit, dtype.type(high_d - low_d), low_d, dtype))


def rand(shape: Shape, dtype: DTypeLike = np.float32,
         generator: Generator | None = None) -> np.ndarray:
    """`torch.rand(*shape)`: uniform on [0, 1)."""
    return uniform_(np.empty(_shape(shape), dtype=_float_dtype(dtype)), 0.0, 1.0, generator)


# -- normal ---------------------------------------------------------------------------

def _box_muller_blocks(uniforms: np.ndarray, mean: float, std: float,
                       dtype: np.dtype) -> np.ndarray:
    """torch's normal_fill_16 on each block of 16: u1 from the first 8, u2 from the last 8;
    r*cos to the first half, r*sin to the second."""
    blocks = uniforms.reshape(-1, 16)
    first, second = blocks[:, :8], blocks[:, 8:]
    if dtype == np.float32 and cpu_kernels == "avx2":
        radius = np.sqrt(_F32(-2) * log_f32(_F32(1) - first))
        sine, cosine = sincos_f32(_F32(2.0 * math.pi) * second)
    elif dtype == np.float32:
        radius = np.sqrt(_F32(-2) * c_float_function("logf", _F32(1) - first))
        angle = ((2.0 * math.pi) * second.astype(np.float64)).astype(np.float32)
        sine, cosine = c_float_function("sinf", angle), c_float_function("cosf", angle)
    else:
        radius = np.sqrt(-2.0 * libm(math.log, 1.0 - first))
        theta = (2.0 * math.pi) * second
        sine, cosine = np.sin(theta), np.cos(theta)
    normals = np.concatenate([radius * cosine, radius * sine], axis=1).ravel()
    if mean == 0 and std == 1:
        return normals
    return fma(normals, dtype.type(std), dtype.type(mean), dtype)


def _normal_vectorised(gen: Generator, count: int, mean: float, std: float,
                       dtype: np.dtype) -> np.ndarray:
    """torch's normal_fill, for contiguous tensors of 16 or more elements."""
    uniforms = _unit_uniform(gen, count, dtype)
    whole = count // 16 * 16
    out = np.empty(count, dtype=dtype)
    out[:whole] = _box_muller_blocks(uniforms[:whole], mean, std, dtype)
    if count % 16:
        # torch redraws 16 fresh uniforms for the last, partial block and recomputes the
        # final 16 outputs from them, overwriting the tail of the last whole block.
        out[count - 16:] = _box_muller_blocks(_unit_uniform(gen, 16, dtype), mean, std,
                                              dtype)
    return out


def _normal_scalar(gen: Generator, count: int, mean: float, std: float) -> np.ndarray:
    """torch's normal_distribution<double>, one value at a time: Box-Muller in double,
    keeping the second value (r*sin) for the next call -- also across calls."""
    values = np.empty(count, dtype=np.float64)
    for index in range(count):
        if gen._next_double_normal is not None:
            values[index] = gen._next_double_normal
            gen._next_double_normal = None
            continue
        u1, u2 = _unit_uniform(gen, 2, np.dtype(np.float64)).tolist()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        gen._next_double_normal = radius * math.sin(theta)
        values[index] = radius * math.cos(theta)
    if mean == 0 and std == 1:
        return values
    if cpu_kernels != "avx2":
        return values * std + mean
    return fma(values, np.float64(std), np.float64(mean), np.dtype(np.float64))


def normal_(array: np.ndarray, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> np.ndarray:
    """Fill `array` (float32/float64) in place as `Tensor.normal_(mean, std)`.

    Contiguous arrays of 16 or more elements take torch's vectorised path; smaller or
    non-contiguous ones the scalar path with its cached second normal.
    """
    array = _check_array(array, "normal_")
    dtype = _float_dtype(array.dtype)
    if not std >= 0:
        raise ValueError(f"normal_ expects std >= 0.0, got {std}")
    gen = resolve_stream(generator)
    if array.size >= 16 and array.flags.c_contiguous:
        return _store(array, _normal_vectorised(gen, array.size, float(mean), float(std),
                                                dtype))
    return _store(array, _normal_scalar(gen, array.size, float(mean), float(std)))


def randn(shape: Shape, dtype: DTypeLike = np.float32,
          generator: Generator | None = None) -> np.ndarray:
    """`torch.randn(*shape)`: standard normal."""
    return normal_(np.empty(_shape(shape), dtype=_float_dtype(dtype)), 0.0, 1.0, generator)


# -- integers -------------------------------------------------------------------------
_WIDE_INT_DTYPES = (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.float32))


def randint(low: int, high: int | None = None, shape: Shape = (),
            dtype: DTypeLike = np.int64, generator: Generator | None = None) -> np.ndarray:
    """`torch.randint(low, high, shape)`: integers in [low, high); `randint(high, shape=...)`
    draws from [0, high). A word (64-bit if the range needs it) modulo the range, plus low."""
    if high is None:
        low, high = 0, low
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"randint's {name} must be an integer, got {value!r}")
    low, high = int(low), int(high)
    if low >= high:
        raise ValueError(f"randint expects low < high, got low={low}, high={high}")
    resolved = np.dtype(dtype)
    count = math.prod(_shape(shape))
    span = high - low
    if span > _UINT64_MASK:
        raise ValueError(f"randint's range high - low must fit in 64 bits, got {span}")
    gen = resolve_stream(generator)
    if span >= 1 << 32 and resolved in _WIDE_INT_DTYPES:
        words = gen.random64(count)
    else:
        words = gen.random32(count)
    offsets = words % _U64(span) + _U64(low & _UINT64_MASK)  # wraps like C's uint64
    return offsets.view(np.int64).astype(resolved).reshape(_shape(shape))


_RANDPERM_SMALL = 0xFFFFFFFF // 20  # torch's threshold between its two shuffles


def randperm(n: int, dtype: DTypeLike = np.int64,
             generator: Generator | None = None) -> np.ndarray:
    """`torch.randperm(n)`: a random permutation of 0..n-1.

    Below ~2**32/20 torch swaps position i with i + (32-bit word mod (n - i)); above, an
    inside-out Fisher-Yates with 64-bit words. Both are sequential swaps (a Python loop).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"randperm expects a non-negative integer n, got {n!r}")
    n = int(n)
    gen = resolve_stream(generator)
    if n < _RANDPERM_SMALL:
        perm = list(range(n))
        if n > 1:
            jumps = (gen.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
            for i, jump in enumerate(jumps):
                j = i + jump
                perm[i], perm[j] = perm[j], perm[i]
    else:
        perm = [0] * n
        picks = (gen.random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
        for i, z in enumerate(picks):
            perm[i] = perm[z]
            perm[z] = i
    return np.array(perm, dtype=np.int64).astype(np.dtype(dtype))


# -- bernoulli, dropout, exponential --------------------------------------------------
def bernoulli(probs: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """`torch.bernoulli(probs)`: 1 where a uniform draw is below p, else 0, in probs' dtype.

    float64 probabilities compare against 53-bit doubles, others against 24-bit floats.
    """
    probs = _float_probabilities(probs, "bernoulli")
    if np.any(~((probs >= 0) & (probs <= 1))):
        raise ValueError("bernoulli expects all probabilities in [0, 1]")
    gen = resolve_stream(generator)
    ordered = _memory_order_view(probs)
    draws = _unit_uniform(gen, probs.size, np.dtype(probs.dtype)).reshape(ordered.shape)
    out = np.empty_like(probs)
    _memory_order_view(out)[...] = draws < ordered
    return out


def bernoulli_(array: np.ndarray, p: float | np.ndarray = 0.5,
               generator: Generator | None = None) -> np.ndarray:
    """`Tensor.bernoulli_(p)` in place: p a float (53-bit uniform draws, torch's default,
    non-MKL CPU path) or an array of probabilities broadcast to the array's shape."""
    array = _check_array(array, "bernoulli_")
    gen = resolve_stream(generator)
    if isinstance(p, np.ndarray):
        probs = np.broadcast_to(_float_probabilities(p, "bernoulli_"), array.shape)
        draws = _unit_uniform(gen, array.size, np.dtype(probs.dtype))
        return _store(array, draws < np.ascontiguousarray(_memory_order_view(probs)).ravel())
    p = float(p)
    if not 0 <= p <= 1:
        raise ValueError(f"bernoulli_ expects 0 <= p <= 1, got {p}")
    return _store(array, _unit_uniform(gen, array.size, np.dtype(np.float64)) < p)


def dropout_mask(shape: Shape, p: float, dtype: DTypeLike = np.float32,
                 generator: Generator | None = None) -> np.ndarray:
    """The scaled mask of `torch.nn.functional.dropout(x, p, training=True)` on CPU:
    output = x * mask. Bernoulli(1 - p) draws divided by (1 - p); p = 0 and p = 1
    draw nothing, as in torch."""
    kept, scale = dropout_keep(shape, p, dtype, generator)
    return np.multiply(kept, scale, dtype=scale.dtype)


_DROPOUT_BLOCK = 1 << 16  # draws per block in dropout_keep: 1 MiB of words


def dropout_keep(shape: Shape, p: float, dtype: DTypeLike = np.float32,
                 generator: Generator | None = None) -> tuple[np.ndarray, Any]:
    """dropout_mask's draws as (kept, scale): a bool array, 1 byte an element where the
    mask takes 4 or 8 (a training step keeps every mask until backward), and the scale
    1/(1-p) as a scalar of `dtype` (0 for p = 1). x * kept * scale is x * dropout_mask
    bit for bit: the mask's kept elements are that same scalar.

    The draws are bernoulli_'s (a 53-bit uniform u < 1 - p), compared as integers: u is
    w * 2^-53 for a 53-bit word w, exactly, so u < q exactly when w < ceil(q 2^53); four
    passes over the words instead of bernoulli_'s float conversion, store and division
    (the GPT lecture at full size draws ~226 million a step)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    resolved = _float_dtype(dtype)
    dims = _shape(shape)
    count = math.prod(dims)
    if p == 0 or p == 1:  # torch draws nothing
        return np.full(dims, p == 0), resolved.type(1 if p == 0 else 0)
    stream, threshold = resolve_stream(generator), _U64(math.ceil((1.0 - p) * 2.0 ** 53))
    kept = np.empty(count, dtype=bool)
    # drawn and compared a block at a time (the stream's words in the same order): the
    # words of W8's attention dropout would be 400 MB at once, a block's stay in cache
    for start in range(0, count, _DROPOUT_BLOCK):
        n = min(_DROPOUT_BLOCK, count - start)
        words = stream.random32(2 * n).reshape(n, 2)
        high = words[:, 0] & _U64((1 << 21) - 1)  # random64's high half, to 53 bits
        high <<= _U64(32)
        high |= words[:, 1]
        np.less(high, threshold, out=kept[start:start + n])
    return kept.reshape(dims), resolved.type(1.0) / resolved.type(1.0 - p)


def exponential_(array: np.ndarray, lambd: float = 1.0,
                 generator: Generator | None = None) -> np.ndarray:
    """`Tensor.exponential_(lambd)` in place: -1/lambd * log1p(-u), u a 53-bit double."""
    array = _check_array(array, "exponential_")
    dtype = _float_dtype(array.dtype)
    if not lambd > 0:
        raise ValueError(f"exponential_ expects lambd > 0.0, but found lambd={lambd}")
    gen = resolve_stream(generator)
    unit = _unit_uniform(gen, array.size, np.dtype(np.float64))
    values = (-1.0 / float(lambd)) * libm(math.log1p, -unit)
    return _store(array, values.astype(dtype))


# -- multinomial ----------------------------------------------------------------------
def multinomial(probs: np.ndarray, num_samples: int, replacement: bool = False,
                generator: Generator | None = None) -> np.ndarray:
    """`torch.multinomial(probs, num_samples, replacement)`: int64 category indices.

    One sample or no replacement: torch's exponential race, argmax/top-k of p / E with
    E ~ Exp(1) drawn for every category. With replacement: a binary search of one 53-bit
    uniform per sample in the row's normalised running sum (in the probabilities' dtype).
    """
    probs = _float_probabilities(probs, "multinomial")
    if probs.ndim not in (1, 2):
        raise ValueError(f"multinomial expects a 1-d or 2-d probability array, "
                         f"got {probs.ndim} dimensions")
    categories = probs.shape[-1]
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) \
            or num_samples <= 0:
        raise ValueError(f"multinomial expects a positive num_samples, got {num_samples!r}")
    if categories == 0:
        raise ValueError("multinomial expects at least one category")
    if not replacement and num_samples > categories:
        raise ValueError(f"cannot sample {num_samples} > {categories} categories "
                         "without replacement")
    if not np.all(np.isfinite(probs)) or np.any(probs < 0):
        raise ValueError("probability array contains either inf, nan or element < 0")
    rows = probs.reshape(-1, categories)
    if np.any(rows.sum(axis=1) == 0):
        raise ValueError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = resolve_stream(generator)
    if not replacement or num_samples == 1:
        race = exponential_(np.empty(rows.shape, dtype=probs.dtype), 1.0, gen)
        keys = rows / race
        if num_samples == 1:
            picks = np.argmax(keys, axis=1)[:, None]
        else:
            picks = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    else:
        picks = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for row_index, row in enumerate(rows):
            running = np.cumsum(row, dtype=probs.dtype)
            running = running / running[-1]
            running[-1] = 1
            draws = _unit_uniform(gen, num_samples, np.dtype(np.float64))
            picks[row_index] = np.searchsorted(running.astype(np.float64), draws,
                                               side="left")
    return picks.astype(np.int64).reshape(probs.shape[:-1] + (num_samples,))
