"""How a tensor prints: torch's text, character for character.

    >>> tensor([[0.1, 2.0], [3.0, 4.0]])
    tensor([[0.1000, 2.0000],
            [3.0000, 4.0000]])

The rules are torch's (its `_tensor_str`), written again over numpy arrays: one formatter
for the whole tensor picks integer mode (every finite value whole: `1.`), scientific mode
(largest/smallest nonzero magnitude over 1000, or one past 1e8 or under 1e-4) or fixed
mode with `precision` decimals, and one width; more than `threshold` elements print only
`edgeitems` at each end of every dimension; rows wrap at `linewidth` characters; then the
suffixes: `dtype=` unless it is the default float, int64 or bool, `grad_fn=<...>` with
torch's node name (`micrograd.tensors.node_names`) or `requires_grad=True`.
`set_printoptions` changes the options for every later print, as torch's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from micrograd.tensors import dtypes, node_names

if TYPE_CHECKING:
    from micrograd.tensors.tensor import Tensor


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """How tensors print from now on, as torch.set_printoptions: `precision` decimals
    (4), summarize past `threshold` elements (1000) showing `edgeitems` (3) at each end,
    wrap at `linewidth` (80); `profile` is "default", "short" or "full"; `sci_mode` forces
    scientific notation on or off (None: chosen per tensor). Like torch, every call resets
    sci_mode to the value given."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                             f"got {profile!r}")
        (OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems,
         OPTIONS.linewidth) = _PROFILES[profile]
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for set_printoptions."""
    return dataclasses.asdict(OPTIONS)


@contextlib.contextmanager
def printoptions(**options: Any) -> Iterator[None]:
    """set_printoptions for the duration of a `with` block."""
    saved = get_printoptions()
    set_printoptions(**options)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Formatter:
    """One number format and width for every element of a tensor (torch's _Formatter)."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        with np.errstate(invalid="ignore"):
            nonzero = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero.size == 0:
            return
        magnitudes = np.abs(nonzero).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool((nonzero == np.ceil(nonzero)).all())
        if OPTIONS.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8
                                 or smallest < 1.0e-4)
        else:
            self.sci_mode = OPTIONS.sci_mode
        p = OPTIONS.precision
        numbers = nonzero.tolist()
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in numbers)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in numbers)  # + 1: the "."
        else:
            self.width = max(len(f"{v:.{p}f}") for v in numbers)

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.width}.{OPTIONS.precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if math.isfinite(value):
                    text += "."
            else:
                text = f"{value:.{OPTIONS.precision}f}"
        else:
            text = f"{value}"
        return text.rjust(self.width)


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (what its format is chosen from)."""
    edge = OPTIONS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate((a[:edge], a[-edge:])) if len(a) > 2 * edge else a
    if not edge:
        return np.empty((0,) * a.ndim, dtype=a.dtype)
    rows = list(range(edge)) + list(range(len(a) - edge, len(a))) if len(a) > 2 * edge \
        else range(len(a))
    return np.stack([_summarized(a[i]) for i in rows])


def _vector(a: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    per_line = max(1, math.floor((OPTIONS.linewidth - indent) / (formatter.width + 2)))
    edge = OPTIONS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(a) > 2 * edge:
        items = ([formatter.format(v) for v in a[:edge].tolist()] + [" ..."]
                 + [formatter.format(v) for v in a[-edge:].tolist()])
    else:
        items = [formatter.format(v) for v in a.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    if a.ndim == 0:
        return formatter.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, formatter)
    edge = OPTIONS.edgeitems
    if summarize and len(a) > 2 * edge:
        parts = ([_nested(a[i], indent + 1, summarize, formatter) for i in range(edge)]
                 + ["..."]
                 + [_nested(a[i], indent + 1, summarize, formatter)
                    for i in range(len(a) - edge, len(a))])
    else:
        parts = [_nested(a[i], indent + 1, summarize, formatter) for i in range(len(a))]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def array_text(a: np.ndarray, indent: int) -> str:
    """The bracketed numbers of a tensor's print, lines after the first indented by
    `indent` (the length of what precedes the first bracket)."""
    if a.size == 0:
        return "[]"
    if a.dtype.kind not in "biuf":  # bfloat16 (ml_dtypes): print its values as float32 does
        a = a.astype(np.float32)
    summarize = a.size > OPTIONS.threshold
    formatter = _Formatter(_summarized(a) if summarize else a)
    return _nested(a, indent, summarize, formatter)


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1  # torch's count, kept to wrap where it does
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t: Tensor) -> str:
    """repr(t) and str(t), as torch prints the same tensor."""
    a = t._array
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    dtype = a.dtype
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if dtype != dtypes.default.dtype:
            suffixes.append(f"dtype={dtypes.dtype_of(dtype)}")
        text = "[]"
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(a.shape)}")
        if dtype not in (dtypes.default.dtype, dtypes.int64, np.dtype(bool)):
            suffixes.append(f"dtype={dtypes.dtype_of(dtype)}")
        text = array_text(a, indent)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{node_names.torch_node_name(t)}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    text = _with_suffixes(prefix + text, suffixes, indent)
    if is_parameter(t):
        text = "Parameter containing:\n" + text
    return text


def is_parameter(t: Tensor) -> bool:
    """True for a tensor nn.Parameter() made (registered there; no import of nn here: the
    module is only looked at if nn was imported, which any Parameter needs)."""
    import sys

    module = sys.modules.get("micrograd.tensors.nn.module")
    return module is not None and isinstance(t, module.Parameter)


def return_type(name: str, base: type, module: str) -> type:
    """A subclass of the namedtuple `base` printed as torch prints what `torch.<name>`
    returns: `torch.return_types.max(\\nvalues=tensor(...),\\nindices=tensor(...))`."""
    def __repr__(self: Any) -> str:
        fields = ",\n".join(f"{field}={getattr(self, field)!r}" for field in self._fields)
        return f"torch.return_types.{name}(\n{fields})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": module})
