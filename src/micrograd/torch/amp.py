"""torch.amp: mixed precision. micrograd computes in float32/float64 on the CPU only, so

- `autocast(...)` is a context (and decorator) that changes nothing: on "cuda" torch itself
  disables it with a warning when there is no GPU, and on "cpu" micrograd keeps float32
  (torch would run matmuls in bfloat16; a warning says so once);
- `GradScaler(enabled=False)` passes everything through (`scale(loss)` is `loss`,
  `step(opt)` is `opt.step()`), and `GradScaler("cuda")` without a GPU disables itself
  with torch's warning; a scaler asked to really scale float16 gradients on the CPU is a
  clear error, since there are no float16 gradients here to protect.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from micrograd.torch import _facade

__all__ = ["autocast", "GradScaler", "is_autocast_available"]

_F = TypeVar("_F", bound=Callable[..., Any])
_warned_cpu_autocast = False


def is_autocast_available(device_type: str) -> bool:
    """True for "cpu" and "cuda", as in torch (on cuda it disables itself without a GPU)."""
    return device_type in ("cpu", "cuda")


class autocast:
    """`with torch.autocast("cpu"):` -- runs the block unchanged (see the module's note)."""

    def __init__(self, device_type: str = "cuda", dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        self.device_type = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if not self._enabled:
            return
        if device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                          "autocast.", UserWarning, stacklevel=2)
            self._enabled = False
        elif device_type == "cpu":
            global _warned_cpu_autocast
            if not _warned_cpu_autocast:
                _warned_cpu_autocast = True
                warnings.warn("micrograd.torch: autocast on the CPU keeps float32 (torch "
                              "would compute matmuls in bfloat16), so the numbers differ "
                              "from torch's in the low bits", UserWarning, stacklevel=2)
        else:
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None

    def __call__(self, function: _F) -> _F:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return function(*args, **kwargs)
        return run  # type: ignore[return-value]


class GradScaler:
    """Loss scaling for float16 training; here only the pass-through form is real."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._scale = float(init_scale)
        self._enabled = bool(enabled)
        if self._enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available. "
                          " Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        elif self._enabled:
            raise NotImplementedError(
                f"GradScaler({device!r}, enabled=True) is not supported by micrograd.torch: "
                "it scales float16 gradients, and micrograd computes in float32/float64. "
                "Pass enabled=False (or drop the scaler); see docs/torch.md")

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        """The loss unchanged (a disabled scaler multiplies by nothing)."""
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        """Nothing was scaled, so nothing to undo."""

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        """No scale to adjust."""

    def get_scale(self) -> float:
        """1.0 when disabled, as torch's."""
        return 1.0

    def state_dict(self) -> dict[str, Any]:
        """{} when disabled, as torch's (a checkpoint stores it and loads it back)."""
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if state_dict:
            raise RuntimeError("The source state dict is not empty, but this GradScaler is "
                               "disabled: micrograd.torch has only disabled scalers")


__getattr__ = _facade.module_getattr(__name__, [])
